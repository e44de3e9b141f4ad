package dev.floe.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few Linux system calls Floe needs, as FFM downcalls that capture {@code errno}.
 *
 * <p>This class calls restricted methods ({@link Linker#downcallHandle}); it is only initialised
 * after {@link Region} has checked that native access is enabled, so a JVM without
 * {@code --enable-native-access} never loads it and never prints the JDK's warning.
 * Constants are the Linux values, identical on x86-64 and AArch64.
 */
@SuppressWarnings("restricted") // restricted FFM calls are this class's purpose; callers check native access
final class Libc {
    /** Linux's {@code errno} for "out of memory": a refused {@code malloc}, or an {@code mmap} past {@code ulimit -v}. */
    static final int ENOMEM = 12; // a compile-time constant: reading it loads nothing restricted
    static final int PROT_READ = 0x1;
    static final int PROT_WRITE = 0x2;
    static final int MAP_SHARED = 0x01;
    static final int MAP_PRIVATE = 0x02;
    static final int MAP_FIXED = 0x10;
    static final int MFD_CLOEXEC = 0x1;
    static final int MAP_ANONYMOUS = 0x20;
    static final int MAP_NORESERVE = 0x4000;
    static final int MADV_DONTNEED = 4;
    static final long PAGE_SIZE = 4096;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURE.varHandle(PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = downcall("munmap",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle MADVISE = downcall("madvise",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle MINCORE = downcall("mincore",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle MEMFD_CREATE = downcall("memfd_create",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle FTRUNCATE = downcall("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle CLOSE = downcall("close",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("strerror"), FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Libc() {}

    private static MethodHandle downcall(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), fd, CAPTURE_ERRNO);
    }

    /** Reserves {@code length} bytes of address space; returns the base address. */
    static long mmapReserve(long length) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            MemorySegment p = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, length,
                    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0L);
            if (p.address() == -1L) {
                throw failure("mmap(" + length + " bytes, MAP_NORESERVE)", errno(state));
            }
            return p.address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Creates an anonymous memory file of {@code length} bytes ({@code memfd_create} +
     * {@code ftruncate}) and returns its descriptor: the shared frame of
     * {@link ReleaseMethod#SHARED_FRAME}.
     */
    static int memfdFrame(String name, long length) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            int fd = (int) MEMFD_CREATE.invokeExact(state, a.allocateFrom(name), MFD_CLOEXEC);
            if (fd < 0) throw failure("memfd_create(" + name + ")", errno(state));
            int rc = (int) FTRUNCATE.invokeExact(state, fd, length);
            if (rc != 0) {
                int e = errno(state);
                closeFd(fd);
                throw failure("ftruncate(memfd, " + length + ")", e);
            }
            return fd;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void closeFd(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            int rc = (int) CLOSE.invokeExact(state, fd);
            if (rc != 0) throw failure("close(" + fd + ")", errno(state));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Replaces the mapping of {@code [address, address+length)} in one call: with the first
     * {@code length} bytes of file {@code fd} shared ({@code fd >= 0}), or with fresh private
     * anonymous memory ({@code fd < 0}). The range stays mapped either way, so concurrent readers
     * never fault (they see the old or the new pages).
     */
    static void remapFixed(long address, long length, int fd) {
        int flags = fd >= 0 ? MAP_SHARED | MAP_FIXED : MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            MemorySegment p = (MemorySegment) MMAP.invokeExact(state, MemorySegment.ofAddress(address),
                    length, PROT_READ | PROT_WRITE, flags, fd, 0L);
            if (p.address() != address) {
                throw failure("mmap(0x" + Long.toHexString(address) + ", " + length + ", MAP_FIXED"
                        + (fd >= 0 ? "|MAP_SHARED" : "|MAP_PRIVATE|MAP_ANONYMOUS") + ")", errno(state));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void munmap(long address, long length) {
        if (length == 0) return;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            int rc = (int) MUNMAP.invokeExact(state, MemorySegment.ofAddress(address), length);
            if (rc != 0) throw failure("munmap(" + length + " bytes)", errno(state));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code madvise(MADV_DONTNEED)}: the range stays mapped; later reads see zeros. */
    static void dontNeed(long address, long length) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            int rc = (int) MADVISE.invokeExact(state, MemorySegment.ofAddress(address), length,
                    MADV_DONTNEED);
            if (rc != 0) {
                throw failure("madvise(0x" + Long.toHexString(address) + ", " + length
                        + ", MADV_DONTNEED)", errno(state));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Counts resident pages of {@code [address, address+length)} with {@code mincore}. */
    static long residentPages(long address, long length) {
        long pages = (length + PAGE_SIZE - 1) / PAGE_SIZE;
        long counted = 0;
        final long batch = 1L << 18; // 1 GiB of address space per call, 256 KiB vector
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            MemorySegment vec = a.allocate(Math.min(batch, Math.max(1, pages)));
            for (long p = 0; p < pages; p += batch) {
                long n = Math.min(batch, pages - p);
                int rc = (int) MINCORE.invokeExact(state,
                        MemorySegment.ofAddress(address + p * PAGE_SIZE), n * PAGE_SIZE, vec);
                if (rc != 0) throw failure("mincore", errno(state));
                for (long i = 0; i < n; i++) {
                    counted += vec.get(JAVA_BYTE, i) & 1;
                }
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return counted;
    }

    /**
     * Moves the calling thread to the {@code SCHED_IDLE} scheduling policy ({@code
     * sched_setscheduler(0, SCHED_IDLE, {0})}; pid 0 is the calling thread): it runs only when no
     * normal thread wants its CPU and never preempts one when it wakes. Lowering a thread's policy
     * needs no privilege. Returns whether the call succeeded.
     */
    static boolean setCurrentThreadIdlePolicy() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment param = a.allocate(JAVA_INT); // struct sched_param { int sched_priority = 0; }
            return (int) SCHED_SETSCHEDULER.invokeExact(0, SCHED_IDLE, param) == 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static final int SCHED_IDLE = 5;
    private static final MethodHandle SCHED_SETSCHEDULER = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("sched_setscheduler"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    private static NativeMemoryException failure(String call, int errno) {
        String msg;
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            msg = s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            msg = "?";
        }
        return new NativeMemoryException(call + " failed: errno " + errno + " (" + msg + ")", errno);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

}
