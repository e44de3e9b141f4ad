package dev.floe.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A lock-free LIFO of superblock descriptors (a Treiber stack), used for each size class's
 * partial list and its list of released superblocks awaiting reuse.
 *
 * <p>The head packs {@code tag << 32 | (index + 1)} (0 = empty) where {@code index} is the
 * descriptor's superblock index; the 32-bit tag grows on every successful pop and push, so a
 * pop whose head was popped and pushed again meanwhile (ABA) fails its CAS. Links live in
 * {@link Superblock#next}; a descriptor is in at most one stack at a time (the heap's protocol
 * guarantees it), so one link field serves both kinds of list.
 *
 * <p>Ordering: a push writes the link with a plain store and publishes it with the head CAS
 * (volatile: release); a pop reads the head with a volatile load (acquire) before reading the
 * link, so it sees the link written by the push that installed that head. A stale link read
 * after a concurrent pop is harmless: the tag makes the CAS fail.
 */
final class DescriptorStack {
    private static final VarHandle HEAD;

    private final SuperblockDirectory directory;
    @SuppressWarnings("unused") // accessed through HEAD
    private volatile long head;

    DescriptorStack(SuperblockDirectory directory) {
        this.directory = directory;
    }

    void push(Superblock sb) {
        assert sb.markListed() : "superblock " + sb.index + " pushed while it is in a stack";
        long h;
        do {
            h = head;
            sb.next = (int) h; // index+1 of the current top, or 0
        } while (!HEAD.compareAndSet(this, h, tagged(h, sb.index + 1)));
    }

    /** Pops a descriptor, or returns {@code null} when the stack is empty. */
    Superblock pop() {
        while (true) {
            long h = head;
            int top = (int) h;
            if (top == 0) return null;
            Superblock sb = directory.get(top - 1);
            if (HEAD.compareAndSet(this, h, tagged(h, sb.next))) {
                assert sb.unmarkListed();
                return sb;
            }
        }
    }

    private static long tagged(long oldHead, int indexPlusOne) {
        return (((oldHead >>> 32) + 1) << 32) | (indexPlusOne & 0xFFFF_FFFFL);
    }

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(DescriptorStack.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
