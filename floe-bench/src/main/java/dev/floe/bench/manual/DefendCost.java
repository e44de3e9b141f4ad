package dev.floe.bench.manual;

import dev.floe.manual.ManualHeap;
import dev.floe.manual.Owner;
import dev.floe.manual.Shield;
import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;
import dev.floe.reclaim.SliceReader;
import dev.floe.reclaim.SliceWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.LongSupplier;

/**
 * The cost of a Snowflake defend next to a plain field read and a Nova write (issue 7: the
 * paper's point is a defend without an expensive fence; ours commits with one uncontended CAS,
 * see {@link Shield}). Single thread, one object, nanoseconds per operation as the best of five
 * rounds after a warm-up: a rough measure for the design note, not a suite. Run it with
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp "$(ls floe-bench/target/floe-bench-*.jar | head -n 1):floe-bench/target/lib/*" \
 *     dev.floe.bench.manual.DefendCost
 * </pre>
 */
public final class DefendCost {
    private static final int OPS = 5_000_000;

    private DefendCost() {}

    /** A heap object with a plain and a volatile field (the baselines). */
    private static final class Holder {
        long plain = 1;
        volatile long vol = 1;
    }

    public static void main(String[] args) {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).name("defend-cost").build()) {
            ManualHeap heap = new ManualHeap(alloc);
            Owner owner = heap.create(64, (byte) 1);
            Nova nova = new Nova(alloc);
            long ptr = nova.allocate(64);
            nova.writePrivate(ptr, (s, p) -> {
                s.fill((byte) 1);
                return null;
            }, null);
            Holder[] hs = new Holder[1024]; // indexed per iteration, so the JIT cannot hoist the load
            for (int i = 0; i < hs.length; i++) hs[i] = new Holder();
            SliceWriter<Void, Long> novaWrite = (MemorySegment s, Void p) -> {
                long v = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) + 1;
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
                return v;
            };
            SliceReader<Long> novaRead = s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            try (Shield reused = heap.newShield()) {
                report("plain field read (holders[i & 1023].plain)", () -> {
                    long sum = 0;
                    for (int i = 0; i < OPS; i++) sum += hs[i & 1023].plain;
                    return sum;
                });
                report("volatile field read (holders[i & 1023].vol)", () -> {
                    long sum = 0;
                    for (int i = 0; i < OPS; i++) sum += hs[i & 1023].vol;
                    return sum;
                });
                report("defend (re-pointed shield) + getLong", () -> {
                    long sum = 0;
                    for (int i = 0; i < OPS; i++) {
                        reused.defend(owner);
                        sum += reused.getLong(0);
                    }
                    return sum;
                });
                report("newShield + defend + getLong + close", () -> {
                    long sum = 0;
                    for (int i = 0; i < OPS; i++) {
                        try (Shield s = heap.newShield()) {
                            s.defend(owner);
                            sum += s.getLong(0);
                        }
                    }
                    return sum;
                });
                report("Nova read (optimistic, 8 bytes)", () -> {
                    long sum = 0;
                    for (int i = 0; i < OPS; i++) sum += nova.read(ptr, novaRead);
                    return sum;
                });
                report("Nova write (hazard slot, 8-byte increment)", () -> {
                    long sum = 0;
                    for (int i = 0; i < OPS; i++) sum += nova.write(ptr, novaWrite, null);
                    return sum;
                });
            }
        }
    }

    private static void report(String what, LongSupplier loop) {
        long sink = 0;
        double best = Double.MAX_VALUE;
        for (int round = 0; round < 8; round++) { // 3 warm-up rounds, then the best of 5
            long t0 = System.nanoTime();
            sink += loop.getAsLong();
            double ns = (System.nanoTime() - t0) / (double) OPS;
            if (round >= 3) best = Math.min(best, ns);
        }
        System.out.printf("%-45s %7.2f ns/op   (sink %d)%n", what, best, sink & 1);
    }
}
