package dev.floe.reclaim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The limbo keeps each group's era and exactly the references its rule keeps, across group reuse. */
class EraLimboTest {
    @Test
    void groupsKeepTheirEraAndTheirKeptReferencesWhateverTheirSize() {
        EraClock clock = new EraClock();
        HazardSlots slots = new HazardSlots();
        EraLimbo limbo = new EraLimbo();
        TreeSet<Long> expected = new TreeSet<>();
        long next = 1;
        // sizes around and above a pooled group's array, so pooled groups are reused and regrown;
        // the group of 2 keeps exactly one reference
        for (int size : new int[] {64, 1, 64, 200, 3, 2, 64, 1000, 64}) {
            long[] refs = new long[size];
            for (int i = 0; i < size; i++) refs[i] = next++;
            long era = next; // distinct per group
            limbo.park(era, refs, size);
            for (long r : refs) expected.add(era << 32 | r);
            List<Long> offered = new ArrayList<>();
            // free every offered reference with an odd value; keep the even ones
            limbo.sweep(slots, clock, (e, rs, count, announced) -> {
                int kept = 0;
                for (int i = 0; i < count; i++) {
                    offered.add(e << 32 | rs[i]);
                    if (rs[i] % 2 == 0) rs[kept++] = rs[i];
                }
                return kept;
            });
            offered.sort(null); // a list, not a set: a reference offered twice must show
            assertEquals(new ArrayList<>(expected), offered, "each parked reference is offered once, with its era");
            expected.removeIf(x -> (x & 0xFFFF_FFFFL) % 2 != 0);
            assertEquals(expected.size(), limbo.waiting());
        }
        limbo.sweep(slots, clock, (e, rs, count, announced) -> 0); // free all
        assertEquals(0, limbo.waiting());
    }

    @Test
    void theSnapshotFollowsTheClockReading() {
        EraClock clock = new EraClock();
        HazardSlots slots = new HazardSlots();
        EraLimbo limbo = new EraLimbo();
        clock.advance();
        long now = clock.current();
        int slot = slots.protect(42);
        limbo.park(1, new long[] {42, 43}, 2);
        long[] seen = new long[2];
        limbo.sweep(slots, clock, (e, rs, count, announced) -> {
            seen[0] = announced.clockBefore();
            seen[1] = announced.contains(42) && !announced.contains(43) ? 1 : 0;
            return count;
        });
        assertEquals(now, seen[0]);
        assertEquals(1, seen[1]);
        slots.clear(slot);
    }
}
