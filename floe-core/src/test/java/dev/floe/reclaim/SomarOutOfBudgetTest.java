package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A SOMAR allocation that the allocator's budget refuses while deleted slices wait in the
 * scheme's retire batches (1,000 deletes each by default): the scheme frees what no announcement
 * protects and tries once more. Before, a scheme whose slices had all been deleted refused
 * every allocation until a batch filled, which a thread that only allocates never brings about.
 */
class SomarOutOfBudgetTest {

    enum Scheme {
        NOVA(Nova::new),
        EPOCH(EpochSomar::new),
        HAZARD_ERAS(HazardErasSomar::new);

        final Function<FloeAllocator, RetiringSomar> make;

        Scheme(Function<FloeAllocator, RetiringSomar> make) {
            this.make = make;
        }
    }

    private static FloeAllocator budgeted() {
        return FloeAllocator.builder().regionSize(1L << 30).budget(4L << 20).jmx(false).build();
    }

    /** Allocates slices of {@code length} bytes until the budget refuses one. */
    private static List<Long> fill(Somar somar, long length) {
        List<Long> ptrs = new ArrayList<>();
        assertThrows(FloeOutOfMemoryException.class, () -> {
            while (true) ptrs.add(somar.allocate(length));
        });
        return ptrs;
    }

    @ParameterizedTest
    @EnumSource(Scheme.class)
    void anAllocationOutOfBudgetFreesTheDeletedSlicesFirst(Scheme scheme) {
        try (FloeAllocator alloc = budgeted()) {
            Somar somar = scheme.make.apply(alloc);
            List<Long> first = fill(somar, 8000);
            assertTrue(first.size() > 100 && first.size() < 1000, first.size() + " slices: fewer than a batch");
            for (long p : first) assertTrue(somar.delete(p));
            List<Long> second = fill(somar, 8000);
            assertEquals(first.size(), second.size(), "the deleted slices' memory came back");
        }
    }

    /** Runs too for slices with an attached run (the map's large values), and a protected slice keeps its block. */
    @org.junit.jupiter.api.Test
    void aSliceUnderAWriteKeepsItsBlockWhenAnAllocationReclaims() {
        try (FloeAllocator alloc = budgeted()) {
            Nova nova = new Nova(alloc);
            List<Long> first = new ArrayList<>();
            assertThrows(FloeOutOfMemoryException.class, () -> {
                while (true) first.add(nova.allocateWithRun(8, 64 << 10));
            });
            long held = first.getFirst();
            nova.write(held, (view, x) -> {
                view.set(ValueLayout.JAVA_LONG, 0, 42L);
                for (long p : first) assertTrue(nova.delete(p));
                int again = 0;
                try {
                    while (true) {
                        nova.allocateWithRun(8, 64 << 10);
                        again++;
                    }
                } catch (FloeOutOfMemoryException full) {
                    assertEquals(first.size() - 1, again, "every deleted slice but the one under the write came back");
                }
                assertEquals(42L, view.get(ValueLayout.JAVA_LONG, 0), "the slice under the write was not reused");
                return null;
            }, null);
        }
    }
}
