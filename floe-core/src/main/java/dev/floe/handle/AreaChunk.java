package dev.floe.handle;

/**
 * One superblock of the handle area ({@link AnchorageHeap}; ANCHORAGE's sub-heap): a run of
 * {@code chunkSize} bytes from the allocator cut into blocks of one size class. Which blocks are
 * used, and which handle id owns each (so the defragmenter can find the entry to switch), is kept
 * on heap; the blocks themselves hold only object bytes. All fields are guarded by the lock of
 * the chunk's size class.
 */
final class AreaChunk {
    final long offset;
    final int sizeClass;
    final int blockSize;
    final int blockCount;
    private final long[] used;
    private final int[] owner;
    private int live;
    private int hint;
    /** Under evacuation: no new allocation goes here. */
    boolean evacuating;
    /** Given back to the allocator (its last block was freed). */
    boolean released;

    AreaChunk(long offset, int sizeClass, int blockSize, long chunkSize) {
        this.offset = offset;
        this.sizeClass = sizeClass;
        this.blockSize = blockSize;
        this.blockCount = (int) (chunkSize / blockSize);
        this.used = new long[(blockCount + 63) >>> 6];
        this.owner = new int[blockCount];
    }

    int live() {
        return live;
    }

    boolean isFull() {
        return live == blockCount;
    }

    /** Takes a free block for handle {@code id}; the chunk must not be full. */
    long take(int id) {
        int w = hint;
        while (used[w] == -1L) w = (w + 1 == used.length) ? 0 : w + 1;
        int bit = Long.numberOfTrailingZeros(~used[w]);
        int i = (w << 6) + bit;
        used[w] |= 1L << bit;
        owner[i] = id;
        live++;
        hint = w;
        return offset + (long) i * blockSize;
    }

    /** The block index of {@code off} if it is a used block start here, else -1. */
    int usedIndex(long off) {
        long rel = off - offset;
        if (rel < 0 || rel % blockSize != 0 || rel / blockSize >= blockCount) return -1;
        int i = (int) (rel / blockSize);
        return (used[i >>> 6] & (1L << i)) != 0 ? i : -1;
    }

    void release(int i) {
        used[i >>> 6] &= ~(1L << i);
        owner[i] = 0;
        live--;
        if ((i >>> 6) < hint) hint = i >>> 6;
    }

    /**
     * Copies the used blocks' offsets and owner ids into {@code offs}/{@code ids} (each at least
     * {@link #live()} long); returns how many.
     */
    int usedBlocks(long[] offs, int[] ids) {
        int n = 0;
        for (int w = 0; w < used.length; w++) {
            long bits = used[w];
            while (bits != 0) {
                int i = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                offs[n] = offset + (long) i * blockSize;
                ids[n++] = owner[i];
            }
        }
        return n;
    }
}
