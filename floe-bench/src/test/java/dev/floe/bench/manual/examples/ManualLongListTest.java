package dev.floe.bench.manual.examples;

import dev.floe.manual.ManualHeap;
import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The list-with-manual-spine example: list behaviour, spines freed, readers safe during growth. */
class ManualLongListTest {

    @Test
    void behavesLikeAListAndFreesEverySpine() {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).build()) {
            ManualHeap heap = new ManualHeap(alloc);
            ManualLongList list = new ManualLongList(heap);
            for (int i = 0; i < 10_000; i++) list.add(i * 2L);
            assertEquals(10_000, list.size());
            assertEquals(5_000, list.get(2_500) / 1);
            list.set(3, -1);
            assertEquals(-1, list.get(3));
            assertEquals(3, list.find(v -> v < 0));
            assertEquals(-1, list.find(v -> v == 7));
            assertThrows(IndexOutOfBoundsException.class, () -> list.get(10_000));
            assertThrows(IndexOutOfBoundsException.class, () -> list.get(-1));
            list.abandon();
            assertEquals(0, heap.reclaim());
            int spines = 1 + (int) Math.ceil(Math.log(10_000 / 4.0) / Math.log(2)); // 4, 8, ..., 16384
            assertEquals(spines, heap.freedCount());
            assertEquals(0, alloc.stats().liveBytes());
        }
    }

    @Test
    void readersOnOtherThreadsSeeCorrectElementsWhileTheListGrows() throws Exception {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).build()) {
            ManualHeap heap = new ManualHeap(alloc);
            ManualLongList list = new ManualLongList(heap);
            list.add(0);
            AtomicReference<String> failure = new AtomicReference<>();
            Thread reader = Thread.ofPlatform().start(() -> {
                while (list.size() < 200_000 && failure.get() == null) {
                    int n = list.size();
                    int i = n - 1;
                    long v = list.get(i);
                    if (v != i * 5L) failure.set("element " + i + " read " + v);
                }
            });
            for (int i = 1; i < 200_000; i++) list.add(i * 5L);
            reader.join();
            assertNull(failure.get(), failure.get());
            list.abandon();
            assertEquals(0, heap.reclaim());
        }
    }

    @Test
    void theExampleRuns() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true));
        try {
            ManualListExample.main(new String[] {"50000"});
        } finally {
            System.setOut(out);
        }
        String text = buf.toString();
        assertTrue(text.contains("list of 50,000 longs"), text);
        assertTrue(text.contains("0 waiting, 0 bytes live"), text);
    }
}
