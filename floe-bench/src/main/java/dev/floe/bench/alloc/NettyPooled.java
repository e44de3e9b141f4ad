package dev.floe.bench.alloc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

import java.util.List;

/**
 * {@code netty-pooled}: {@code PooledByteBufAllocator.DEFAULT.directBuffer(size)}, freed with
 * {@code release()}. The handle is the slot that holds the {@code ByteBuf}.
 *
 * <p>Netty gets its best configuration (see {@link #JVM_ARGS}): thread caches for every thread
 * (by default only Netty's own event-loop threads get them, and our worker threads are plain
 * threads), leak detection off (by default it samples 1 in 128 buffers), and the JDK's
 * internal unsafe memory access, which Netty (not Floe) uses for direct buffers, allowed
 * without a warning ({@code --sun-misc-unsafe-memory-access=allow}, in Netty's worker JVM only). Netty keeps no committed/live counters in our sense, so those read 0.
 */
final class NettyPooled implements OffHeapAllocator {

    /** Options for the worker JVM, set before Netty's classes initialise. */
    static final List<String> JVM_ARGS = List.of(
            "-Dio.netty.allocator.useCacheForAllThreads=true",
            "-Dio.netty.leakDetection.level=disabled",
            "--sun-misc-unsafe-memory-access=allow");

    private final PooledByteBufAllocator netty = PooledByteBufAllocator.DEFAULT;
    private final ByteBuf[] buffers;

    NettyPooled(int slots) {
        this.buffers = new ByteBuf[slots];
    }

    @Override
    public long alloc(int slot, int size) {
        buffers[slot] = netty.directBuffer(size);
        return slot;
    }

    @Override
    public void write(long handle, long value) {
        buffers[(int) handle].setLong(0, value);
    }

    @Override
    public void free(long handle) {
        int slot = (int) handle;
        ByteBuf b = buffers[slot];
        buffers[slot] = null;
        b.release();
    }

    @Override
    public void close() {
        // the pool is process-wide; every buffer has been released
    }
}
