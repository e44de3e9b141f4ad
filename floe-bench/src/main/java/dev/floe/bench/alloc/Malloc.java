package dev.floe.bench.alloc;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code malloc}: the C library's {@code malloc} and {@code free} through FFM downcalls. The
 * handle is the address.
 *
 * <p>The downcalls are {@linkplain Linker.Option#critical(boolean) critical} (no thread-state
 * transition, as JNI critical natives): both functions are short and never call back into Java.
 * Addresses travel as {@code long}s, not {@code MemorySegment}s, so nothing is allocated per
 * call. The touch writes through one segment spanning the whole address space, which needs
 * native access ({@code --enable-native-access=ALL-UNNAMED}, which worker JVMs always get).
 */
@SuppressWarnings("restricted") // restricted FFM calls are this class's purpose; callers check native access
final class Malloc implements OffHeapAllocator {

    private static final MethodHandle MALLOC = downcall("malloc", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle FREE = downcall("free", FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG));
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    @Override
    public long alloc(int slot, int size) {
        long address;
        try {
            address = (long) MALLOC.invokeExact((long) size);
        } catch (Throwable t) {
            throw new IllegalStateException("malloc downcall failed", t);
        }
        if (address == 0) throw new OutOfMemoryError("malloc(" + size + ") returned NULL");
        return address;
    }

    @Override
    public void write(long handle, long value) {
        EVERYTHING.set(ValueLayout.JAVA_LONG, handle, value);
    }

    @Override
    public void free(long handle) {
        try {
            FREE.invokeExact(handle);
        } catch (Throwable t) {
            throw new IllegalStateException("free downcall failed", t);
        }
    }

    @Override
    public void close() {
        // malloc has no per-trial state
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        Linker linker = Linker.nativeLinker();
        MemorySegment symbol = linker.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("no symbol " + name + " in the C library"));
        return linker.downcallHandle(symbol, descriptor, Linker.Option.critical(false));
    }
}
