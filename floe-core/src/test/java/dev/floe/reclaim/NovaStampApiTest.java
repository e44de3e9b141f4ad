package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Nova's lambda-free access (the stamp API the map layer uses): beginRead / validate,
 * beginReadAny and beginReadOwned on live, deleted and reused slices, protect / unprotect, and
 * that none of them accepts a random long.
 */
class NovaStampApiTest {
    private FloeAllocator alloc;
    private Nova nova;

    @BeforeEach
    void open() {
        alloc = NovaTestSupport.open(dev.floe.memory.Region.detectMode());
        nova = new Nova(alloc, 1); // batch 1: a delete frees at once (when unprotected)
    }

    @AfterEach
    void close() {
        alloc.close();
    }

    @Test
    void liveSliceReadsAndValidates() {
        long p = nova.allocate(24);
        long st = nova.beginRead(p);
        assertNotEquals(0, st);
        assertEquals(24, Nova.stampLength(st));
        nova.writeView(p, st).set(ValueLayout.JAVA_LONG, 0, 42L);
        assertEquals(42L, nova.readView(p, st).get(ValueLayout.JAVA_LONG, 0));
        assertEquals(42L, nova.region().getLongPlain(nova.dataOffset(p)));
        assertTrue(nova.validate(p, st));
        assertEquals(st, nova.beginReadAny(p));
        assertEquals(st, nova.beginReadOwned(p));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void deleteFailsValidationAndReuseHidesTheSlice(boolean owned) {
        long p = nova.allocate(24);
        long st = nova.beginRead(p);
        int slot = nova.protect(p);
        assertTrue(slot >= 0);
        assertTrue(nova.delete(p));
        assertFalse(nova.validate(p, st), "deleted since the stamp");
        assertEquals(0, nova.beginRead(p));
        long any = owned ? nova.beginReadOwned(p) : nova.beginReadAny(p);
        assertTrue(any != 0 && Nova.isDeletedStamp(any), "deleted but not reused: still readable as deleted");
        assertEquals(-1, nova.protect(p), "a deleted slice cannot be protected");
        nova.unprotect(slot);
        nova.reclaimNow();
        long q;
        do {
            q = nova.allocate(24); // reuse the block
        } while (SafePointer.headerOffset(q) != SafePointer.headerOffset(p));
        assertNotEquals(p, q, "a reused block has a new version");
        assertEquals(0, owned ? nova.beginReadOwned(p) : nova.beginReadAny(p), "reused: the old pointer names nothing");
        assertNotEquals(0, nova.beginReadOwned(q));
    }

    @Test
    void isLiveOwnedIsTrueOnlyWhileTheIncarnationLives() {
        long p = nova.allocate(24);
        assertTrue(nova.isLiveOwned(p));
        assertTrue(nova.delete(p));
        assertFalse(nova.isLiveOwned(p), "deleted, not yet reused");
        assertFalse(nova.isLiveOwned(SafePointer.markDeleted(p)));
        nova.reclaimNow();
        long q;
        do {
            q = nova.allocate(24);
        } while (SafePointer.headerOffset(q) != SafePointer.headerOffset(p));
        assertFalse(nova.isLiveOwned(p), "reused: the old incarnation is not live");
        assertTrue(nova.isLiveOwned(q));
        assertFalse(nova.isLiveOwned(0), "version 0 is never live");
    }

    /** The header check a hot path splits around its fence: expectation first, header word through the block view last. */
    private boolean liveThroughBlockView(long ptr) {
        long expect = nova.liveHeaderExpectation(ptr);
        if (expect == 0) return false;
        return Nova.isLiveHeader(nova.blockView(ptr, 8).get(ValueLayout.JAVA_LONG, 0), expect);
    }

    @Test
    void blockViewHeaderCheckAgreesWithIsLiveOwned() {
        long p = nova.allocate(24);
        nova.writeView(p, nova.beginRead(p)).set(ValueLayout.JAVA_LONG, 0, 77L);
        assertEquals(77L, nova.blockView(p, 24).get(ValueLayout.JAVA_LONG, nova.headerBytes()), "data after the header");
        assertTrue(liveThroughBlockView(p));
        assertTrue(nova.delete(p));
        assertFalse(liveThroughBlockView(p), "deleted, not yet reused");
        assertEquals(0, nova.liveHeaderExpectation(SafePointer.markDeleted(p)), "a deleted pointer is never live");
        nova.reclaimNow();
        long q;
        do {
            q = nova.allocate(24);
        } while (SafePointer.headerOffset(q) != SafePointer.headerOffset(p));
        assertFalse(liveThroughBlockView(p), "reused: the old incarnation is not live");
        assertTrue(liveThroughBlockView(q));
        assertEquals(0, nova.liveHeaderExpectation(0), "version 0 is never live");
    }

    @Test
    void magicModeLeavesTheHeaderCheckToIsLiveOwned() {
        Nova magic = new Nova(alloc, 1, true);
        long p = magic.allocate(24);
        assertEquals(0, magic.liveHeaderExpectation(p), "the magic must be checked too: no expectation");
        assertTrue(magic.isLiveOwned(p));
    }

    @Test
    void randomLongsNeverValidate() {
        Random r = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            long x = r.nextLong();
            assertEquals(0, nova.beginRead(x));
            assertEquals(0, nova.beginReadAny(x));
            assertEquals(-1, nova.protect(x));
        }
    }

    /**
     * A pointer that looks live (a version, no deleted mark) but names header offset 0, or an
     * offset inside a block: protect refuses it with -1 (the hazard slots reject a 0 reference,
     * so the offset must be checked before the publication) and leaves no slot held.
     */
    @Test
    void forgedLiveLookingPointersAreNotProtected() {
        long p = nova.allocate(24);
        long zero = SafePointer.of(0, 1);
        assertEquals(-1, nova.protect(zero));
        assertEquals(-1, nova.protectOwned(zero));
        long inside = SafePointer.of(SafePointer.headerOffset(p) + 8, SafePointer.version(p));
        assertEquals(-1, nova.protect(inside));
        int held = nova.protect(p);
        assertTrue(held >= 0);
        nova.unprotect(held);
        assertTrue(nova.delete(p));
        nova.reclaimNow();
        assertEquals(0, alloc.stats().liveBytes(), "no forged protection kept the slice alive");
    }
}
