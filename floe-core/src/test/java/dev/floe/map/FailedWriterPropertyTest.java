package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;

/**
 * A zero-copy writer runs arbitrary steps on a value (typed puts of every width at arbitrary
 * offsets, writes through {@link OakWriteBuffer#segment()}, resizes in place and beyond the
 * value's block, bursts of more puts than the undo log records one by one) and then returns or
 * throws. A step outside the value throws {@link IndexOutOfBoundsException}. Property: if the
 * writer returned, the value is what a byte-array model of the same steps holds; if it threw
 * (either way), the value holds its previous bytes and length, as {@code Map.compute} promises
 * for a failed function. A neighbouring key is never touched, and the key stays usable.
 */
class FailedWriterPropertyTest {
    enum Kind { BYTE, SHORT, INT, LONG, DOUBLE, FILL, RESIZE, RESIZE_SMALL, RESIZE_LARGE, BURST }

    /** One step: {@code a} is an offset or a size, {@code b} a length, {@code v} the bits written. */
    record Step(Kind kind, int a, int b, long v) {}

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Kind> kinds = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(10, Arbitraries.of(Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG, Kind.DOUBLE)),
                net.jqwik.api.Tuple.of(3, Arbitraries.of(Kind.FILL, Kind.RESIZE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(Kind.RESIZE_SMALL, Kind.RESIZE_LARGE, Kind.BURST)));
        // offsets mostly inside the value, sometimes anywhere up to just past the largest one, or negative
        Arbitrary<Integer> offsets = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(30, Arbitraries.integers().between(0, 56)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(-2, 320)));
        return Combinators.combine(kinds, offsets, Arbitraries.integers().between(0, 40), Arbitraries.longs())
                .as(Step::new).list().ofMaxSize(40);
    }

    @Property(tries = 500)
    void aWriterThatThrowsLeavesTheValueAsItWas(@ForAll("steps") List<Step> steps, @ForAll boolean throwAtEnd,
                                                @ForAll @IntRange(min = 60, max = 300) int initialSize,
                                                @ForAll boolean upsert) {
        byte[] initial = new byte[initialSize];
        for (int i = 0; i < initialSize; i++) initial[i] = (byte) (i * 7 + 3);
        byte[] neighbour = {1, 2, 3};
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).build()) {
            m.put(1L, initial);
            m.put(2L, neighbour);
            Model model = new Model(initial);
            boolean threw = false;
            try {
                if (upsert) {
                    assertFalse(m.zc().putIfAbsentComputeIfPresent(1L, new byte[0], w -> run(w, steps, model, throwAtEnd)));
                } else {
                    m.zc().computeIfPresent(1L, w -> run(w, steps, model, throwAtEnd));
                }
            } catch (IndexOutOfBoundsException | WriterFailed e) {
                threw = true;
                Statistics.collect(e instanceof WriterFailed ? "threw at the end" : "a step threw");
            }
            if (!threw) Statistics.collect("returned");
            byte[] expected = threw ? initial : model.bytes;
            assertArrayEquals(expected, m.get(1L), threw ? "a failed writer's value" : "a writer's result");
            assertEquals(expected.length, m.zc().get(1L).size());
            assertArrayEquals(neighbour, m.get(2L));
            m.zc().computeIfPresent(1L, w -> w.resize(1));
            assertArrayEquals(new byte[] {expected.length == 0 ? 0 : expected[0]}, m.get(1L), "the key stays usable");
        }
    }

    /** Runs the steps on the buffer and on the model; a step the buffer refuses ends the writer. */
    private static void run(OakWriteBuffer w, List<Step> steps, Model model, boolean throwAtEnd) {
        for (Step s : steps) {
            switch (s.kind()) {
                case BYTE -> { w.putByte(s.a(), (byte) s.v()); model.set(ValueLayout.JAVA_BYTE, s.a(), (byte) s.v()); }
                case SHORT -> { w.putShort(s.a(), (short) s.v()); model.set(ValueLayout.JAVA_SHORT_UNALIGNED, s.a(), (short) s.v()); }
                case INT -> { w.putInt(s.a(), (int) s.v()); model.set(ValueLayout.JAVA_INT_UNALIGNED, s.a(), (int) s.v()); }
                case LONG -> { w.putLong(s.a(), s.v()); model.set(ValueLayout.JAVA_LONG_UNALIGNED, s.a(), s.v()); }
                case DOUBLE -> {
                    double d = Double.longBitsToDouble(s.v());
                    w.putDouble(s.a(), d);
                    model.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, s.a(), d);
                }
                case FILL -> {
                    w.segment().asSlice(s.a(), s.b()).fill((byte) s.v());
                    Arrays.fill(model.bytes, s.a(), s.a() + s.b(), (byte) s.v());
                }
                case RESIZE -> { w.resize(64 + Math.max(0, s.a()) + s.b()); model.resize(64 + Math.max(0, s.a()) + s.b()); }
                case RESIZE_SMALL -> { w.resize(s.b()); model.resize(s.b()); }
                case RESIZE_LARGE -> { w.resize(5_000 + s.b()); model.resize(5_000 + s.b()); }
                case BURST -> { // more field records than the undo log keeps one by one, the last ones on fresh bytes
                    for (int i = 0; i < 300; i++) {
                        if (model.bytes.length == 0) break;
                        int at = i < 260 ? 0 : (i - 259) % model.bytes.length;
                        w.putByte(at, (byte) (s.v() + i));
                        model.bytes[at] = (byte) (s.v() + i);
                    }
                }
            }
        }
        if (throwAtEnd) throw new WriterFailed();
    }

    /** The value as a byte array: the same accessors, so the same bounds checks and byte order. */
    private static final class Model {
        byte[] bytes;

        Model(byte[] initial) {
            bytes = initial.clone();
        }

        void set(ValueLayout.OfByte l, long at, byte v) { MemorySegment.ofArray(bytes).set(l, at, v); }
        void set(ValueLayout.OfShort l, long at, short v) { MemorySegment.ofArray(bytes).set(l, at, v); }
        void set(ValueLayout.OfInt l, long at, int v) { MemorySegment.ofArray(bytes).set(l, at, v); }
        void set(ValueLayout.OfLong l, long at, long v) { MemorySegment.ofArray(bytes).set(l, at, v); }
        void set(ValueLayout.OfDouble l, long at, double v) { MemorySegment.ofArray(bytes).set(l, at, v); }

        void resize(int size) {
            bytes = Arrays.copyOf(bytes, size);
        }
    }
}
