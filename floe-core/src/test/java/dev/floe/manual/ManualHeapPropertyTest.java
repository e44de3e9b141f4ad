package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random programs of create / defend / abandon / move / reclaim on one thread, checked against a
 * model: every live owner's object has the size and contents it was created with (a premature
 * free would let a later create reuse and overwrite its block), and every abandoned object is
 * freed exactly once after its shields closed.
 */
class ManualHeapPropertyTest {

    @Property(tries = 60)
    void ownersKeepTheirObjectsUntilAbandonedAndEveryAbandonIsFreedOnce(
            @ForAll("programs") List<int[]> program, @ForAll @IntRange(min = 1, max = 8) int batch) {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).build()) {
            ManualHeap heap = new ManualHeap(alloc, new ManualHeap.Config(batch, 16));
            List<Owner> owners = new ArrayList<>();
            List<long[]> model = new ArrayList<>(); // {size, fill} of each owner's object, or null when empty
            List<Shield> open = new ArrayList<>();
            long abandoned = 0;
            int nextFill = 1;
            for (int[] op : program) {
                int pick = owners.isEmpty() ? -1 : op[1] % owners.size();
                switch (op[0]) {
                    case 0 -> {
                        int size = 1 + op[1] % 5000;
                        byte fill = (byte) nextFill++;
                        owners.add(heap.create(size, fill));
                        model.add(new long[] {size, fill});
                    }
                    case 1 -> { // defend, check, keep the shield open for a while
                        if (pick < 0 || model.get(pick) == null) continue;
                        Shield s = owners.get(pick).defend();
                        check(s, model.get(pick));
                        open.add(s);
                    }
                    case 2 -> {
                        if (pick < 0 || model.get(pick) == null) continue;
                        owners.get(pick).abandon();
                        model.set(pick, null);
                        abandoned++;
                    }
                    case 3 -> { // move pick's object into another owner
                        int to = op[2] % Math.max(1, owners.size());
                        if (pick < 0 || to == pick || model.get(pick) == null) continue;
                        if (model.get(to) != null) abandoned++;
                        owners.get(to).move(owners.get(pick));
                        model.set(to, model.get(pick));
                        model.set(pick, null);
                    }
                    case 4 -> {
                        for (Shield s : open) s.close();
                        open.clear();
                    }
                    default -> heap.reclaim();
                }
                assertEquals(abandoned, heap.waiting() + heap.freedCount());
            }
            for (int i = 0; i < owners.size(); i++) {
                if (model.get(i) == null) {
                    assertTrue(owners.get(i).isEmpty());
                    continue;
                }
                try (Shield s = owners.get(i).defend()) {
                    check(s, model.get(i));
                }
            }
            for (Shield s : open) s.close();
            assertEquals(0, heap.reclaim());
            assertEquals(abandoned, heap.freedCount());
        }
    }

    private static void check(Shield s, long[] expected) {
        assertEquals(expected[0], s.byteSize());
        byte fill = (byte) expected[1];
        assertEquals(fill, s.getByte(0));
        assertEquals(fill, s.getByte(expected[0] / 2));
        assertEquals(fill, s.getByte(expected[0] - 1));
    }

    @Provide
    Arbitrary<List<int[]>> programs() {
        Arbitrary<int[]> op = Arbitraries.integers().between(0, 5)
                .flatMap(kind -> Arbitraries.integers().between(0, 10_000).list().ofSize(2)
                        .map(args -> new int[] {kind, args.get(0), args.get(1)}));
        return op.list().ofMinSize(1).ofMaxSize(120);
    }
}
