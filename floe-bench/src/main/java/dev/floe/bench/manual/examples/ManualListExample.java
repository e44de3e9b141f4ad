package dev.floe.bench.manual.examples;

import dev.floe.manual.ManualHeap;
import dev.floe.memory.FloeAllocator;

/**
 * Runs the list-with-manual-spine example (Snowflake paper, section 3.5): fills a
 * {@link ManualLongList} (its spine grows and is moved 18 times), searches it while a second
 * thread reads it concurrently, abandons it, and shows that every spine went back to the
 * allocator. Run it with
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp "$(ls floe-bench/target/floe-bench-*.jar | head -n 1):floe-bench/target/lib/*" \
 *     dev.floe.bench.manual.examples.ManualListExample [elements]
 * </pre>
 */
public final class ManualListExample {
    private ManualListExample() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        if (n < 1) throw new IllegalArgumentException("elements must be positive: " + n);
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(4L << 30).name("list-example").build()) {
            ManualHeap heap = new ManualHeap(alloc);
            ManualLongList list = new ManualLongList(heap);
            long[] readerSum = new long[1];
            Thread reader = Thread.ofPlatform().start(() -> { // reads while the owner thread grows the list
                for (int round = 0; round < 200; round++) {
                    int size = list.size();
                    if (size > 0) readerSum[0] += list.get(size - 1);
                }
            });
            for (int i = 0; i < n; i++) list.add(i * 3L);
            reader.join();
            int found = list.find(v -> v > 0 && v % 7919 == 0);
            System.out.printf("list of %,d longs; first multiple of 7919: element %,d = %,d; last element %,d%n",
                    list.size(), found, found >= 0 ? list.get(found) : -1, list.get(list.size() - 1));
            System.out.printf("spines abandoned while growing and still waiting: %,d; freed so far: %,d%n",
                    heap.waiting(), heap.freedCount());
            list.abandon();
            long waiting = heap.reclaim();
            System.out.printf("after abandon + reclaim: %,d spines freed, %,d waiting, %,d bytes live in the allocator%n",
                    heap.freedCount(), waiting, alloc.stats().liveBytes());
        }
    }
}
