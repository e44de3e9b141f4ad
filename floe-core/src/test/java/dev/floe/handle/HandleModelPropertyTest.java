package dev.floe.handle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of allocate / write / free / drain / defragmentation passes (both modes)
 * against a model: live handles always read what was last written, with their size, and every
 * freed handle (whose id may have been reused since) fails cleanly.
 */
class HandleModelPropertyTest {

    @Property(tries = 40)
    void handlesBehaveLikeTheModel(@ForAll("ops") List<Integer> ops) {
        try (FloeAllocator alloc = HandleTestSupport.allocator()) {
            HandleSpace space = new HandleSpace(alloc);
            Anchorage dense = Anchorage.manual(space, DefragConfig.DEFAULTS);
            Anchorage all = Anchorage.manual(space, DefragConfig.DEFAULTS.withMoveEverything(true));
            Map<Long, long[]> live = new HashMap<>(); // handle -> {size, value}
            List<Long> handles = new ArrayList<>();
            List<Long> freed = new ArrayList<>();
            long counter = 0;
            for (int op : ops) {
                int kind = op & 7;
                int arg = op >>> 3;
                switch (kind) {
                    case 0, 1, 2 -> {
                        long size = 8L * (1 + arg % 250);
                        long h = space.allocate(size);
                        assertFalse(live.containsKey(h), "a live handle was handed out twice");
                        live.put(h, new long[] {size, 0});
                        handles.add(h);
                    }
                    case 3 -> {
                        if (handles.isEmpty()) continue;
                        long h = handles.get(arg % handles.size());
                        long v = ++counter;
                        long[] m = live.get(h);
                        space.write(h, s -> {
                            s.set(JAVA_LONG, m[0] - 8, v);
                            return null;
                        });
                        m[1] = v;
                    }
                    case 4 -> {
                        if (handles.isEmpty()) continue;
                        long h = handles.remove(arg % handles.size());
                        space.free(h);
                        live.remove(h);
                        freed.add(h);
                    }
                    case 5 -> space.drainRetired();
                    case 6 -> dense.runPass();
                    default -> all.runPass();
                }
            }
            for (Map.Entry<Long, long[]> e : live.entrySet()) {
                long[] m = e.getValue();
                assertEquals(m[0], space.size(e.getKey()));
                assertEquals(m[1], (long) space.read(e.getKey(), s -> s.get(JAVA_LONG, m[0] - 8)));
                assertTrue(space.isLive(e.getKey()));
            }
            for (long h : freed) {
                assertFalse(space.isLive(h));
                assertThrows(StaleHandleException.class, () -> space.read(h, s -> 0));
                assertThrows(StaleHandleException.class, () -> space.free(h));
            }
            long liveBlocks = 0;
            space.drainRetired();
            for (long[] m : live.values()) liveBlocks += dev.floe.memory.SizeClasses.blockSize(dev.floe.memory.SizeClasses.classOf(m[0]));
            assertEquals(liveBlocks, space.service().liveBytes(), "no block leaked or lost");
            space.close();
        }
    }

    @Provide
    Arbitrary<List<Integer>> ops() {
        return Arbitraries.integers().between(0, Integer.MAX_VALUE).list().ofMinSize(1).ofMaxSize(400);
    }

    @Property(tries = 200)
    void handleBitsRoundTrip(@ForAll int id, @ForAll int version) {
        long h = Handle.of(id, version);
        assertEquals(id & 0xFFFF_FFFFL, Handle.id(h));
        assertEquals(version, Handle.version(h));
    }

    @Property(tries = 200)
    void entryStateTransitionsKeepTheOffsetAndAlwaysChangeTheWord(@ForAll("offsets") long offset, @ForAll long start) {
        long s = EntryState.live(start, offset);
        assertEquals(offset, EntryState.offset(s));
        assertFalse(EntryState.isFree(s) || EntryState.isMoving(s));
        long m = EntryState.moving(s);
        assertTrue(EntryState.isMoving(m) && EntryState.offset(m) == offset && m != s);
        long c = EntryState.settled(m);
        assertTrue(!EntryState.isMoving(c) && EntryState.offset(c) == offset && c != s && c != m);
        long f = EntryState.freed(m);
        assertTrue(EntryState.isFree(f) && !EntryState.isMoving(f) && EntryState.offset(f) == offset);
    }

    @Provide
    Arbitrary<Long> offsets() {
        return Arbitraries.longs().between(0, EntryState.OFFSET_MASK >>> 3).map(x -> x << 3);
    }
}
