package dev.floe.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkloadFilterTest {
    private static final String PROPERTY = "floe.test.workloads";
    private static final Set<String> KNOWN = Set.of("a", "b", "c");

    private static void check(String name) {
        if (!KNOWN.contains(name)) throw new IllegalArgumentException("no workload '" + name + "'");
    }

    @AfterEach
    void clear() {
        System.clearProperty(PROPERTY);
    }

    @Test
    void unsetOrBlankMeansAll() {
        assertNull(WorkloadFilter.selected(PROPERTY, WorkloadFilterTest::check));
        System.setProperty(PROPERTY, "  ");
        assertNull(WorkloadFilter.selected(PROPERTY, WorkloadFilterTest::check));
    }

    @Test
    void namesAreTrimmedAndEmptyOnesSkipped() {
        System.setProperty(PROPERTY, " b, ,a ");
        assertEquals(List.of("b", "a"), WorkloadFilter.selected(PROPERTY, WorkloadFilterTest::check));
    }

    @Test
    void anUnknownNameFails() {
        System.setProperty(PROPERTY, "a,zz");
        assertThrows(IllegalArgumentException.class, () -> WorkloadFilter.selected(PROPERTY, WorkloadFilterTest::check));
    }
    @Test
    void aValueThatNamesNoWorkloadFails() {
        System.setProperty(PROPERTY, " , ,");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WorkloadFilter.selected(PROPERTY, WorkloadFilterTest::check));
        assertTrue(e.getMessage().contains(PROPERTY), e.getMessage());
    }

    @Test
    void anUnknownNameIsReportedWithTheProperty() {
        System.setProperty(PROPERTY, "zz");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WorkloadFilter.selected(PROPERTY, WorkloadFilterTest::check));
        assertTrue(e.getMessage().contains("-D" + PROPERTY) && e.getMessage().contains("'zz'"), e.getMessage());
    }
}
