package dev.floe.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JsonTest {

    @Test
    void nestedValuesSurviveARoundTrip() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "a \"quoted\" \\ line\nbreak\ttab \u0001");
        m.put("count", 3L);
        m.put("ratio", 1.25);
        m.put("ok", true);
        m.put("none", null);
        m.put("list", List.of(1L, "two", List.of()));
        m.put("empty", Map.of());
        assertEquals(m, Json.parse(Json.pretty(m)));
        assertEquals(m, Json.parse(Json.compact(m)));
    }

    @Test
    void compactJsonIsOneLine() {
        assertFalse(Json.compact(Map.of("a", List.of(1, 2), "b", Map.of("c", "d"))).contains("\n"));
    }

    @Test
    void keysKeepTheirInsertionOrder() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("z", 1);
        m.put("a", 2);
        assertEquals("{\"z\":1,\"a\":2}", Json.compact(m));
    }

    @Test
    void integralDoublesAreWrittenWithoutAFraction() {
        assertEquals("[3,2.5]", Json.compact(List.of(3.0, 2.5)));
    }

    @Test
    void nonFiniteNumbersBecomeNull() {
        assertEquals("[null,null]", Json.compact(List.of(Double.NaN, Double.POSITIVE_INFINITY)));
    }

    @Test
    void numbersParseAsLongWhenIntegralAndDoubleOtherwise() {
        assertEquals(List.of(42L, -1.5, 1e20, 2e3), Json.parse("[42, -1.5, 100000000000000000000, 2e3]"));
    }

    @Test
    void malformedTextIsRefusedWithItsPosition() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\": 1,}"));
        assertEquals(true, e.getMessage().contains("offset"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1] 2"));
        assertThrows(IllegalArgumentException.class, () -> Json.parseObject("[1]"));
    }
}
