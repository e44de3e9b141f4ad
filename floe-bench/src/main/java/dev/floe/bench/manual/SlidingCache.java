package dev.floe.bench.manual;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The shared cache of the Snowflake caching benchmark (paper sections 2.1, 3.5 and 5: ASP.NET's
 * {@code MemoryCache}): a concurrent map from key to entry, sliding expiration, allocate on miss.
 * Subclasses decide where the payload lives.
 *
 * <p>A request for a key: if an entry is present and was read within the expiration, it is a
 * hit (the entry's last-access time is refreshed and the payload is read); otherwise the expired
 * entry, if any, is removed and a new payload is allocated, filled and put in the map (a miss).
 * Expired entries of keys nobody asks for are removed by a scan over the map that the first
 * request after each half expiration period runs (ASP.NET triggers its scan from requests too).
 * An entry leaves the map exactly once (a successful {@code remove(key, entry)} or the
 * {@code put} that replaced it), and only that thread evicts it: for {@code manual}, abandons
 * its payload's owner.
 *
 * <p>Every request checks its payload: the payload is filled with the key's low byte on creation
 * and a request reads eight bytes spread over it; a mismatch is counted (it would mean a request
 * read another entry's payload: a use-after-free). The count is reported and must be 0.
 */
abstract class SlidingCache<E extends SlidingCache.Entry> implements AutoCloseable {

    /**
     * An entry: its payload is the implementation's, and so is the field behind
     * {@link #lastAccess()} (the {@code manual} entry extends {@code Owner} to embed its owner,
     * so the entries share this interface rather than a base class).
     */
    interface Entry {
        /** The time of the last access (an opaque read: a racy timestamp, never torn). */
        long lastAccess();

        /** Refreshes the sliding expiration (an opaque store). */
        void touch(long now);

        default boolean expired(long now, long expirationNanos) {
            return now - lastAccess() > expirationNanos;
        }
    }

    final int payloadBytes;
    private final long expirationNanos;
    private final ConcurrentHashMap<Integer, E> map = new ConcurrentHashMap<>();
    private volatile long nextScan;
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder evictions = new LongAdder();
    final LongAdder mismatches = new LongAdder();

    SlidingCache(int payloadBytes, long expirationMs) {
        if (payloadBytes < 8) throw new IllegalArgumentException("payload must be at least 8 bytes: " + payloadBytes);
        this.payloadBytes = payloadBytes;
        this.expirationNanos = expirationMs * 1_000_000L;
        this.nextScan = expirationNanos / 2; // the driver's virtual clock starts at 0
    }

    /**
     * A request thread's handle on the cache: created and used by one thread (for
     * {@code manual} it holds the thread's shield, re-pointed at each request's payload: the
     * paper's idiom for shields in loops), closed when the thread is done.
     */
    abstract class Worker implements AutoCloseable {
        /**
         * One request for {@code key} at time {@code now} (nanoseconds of the driver's virtual
         * clock). The key is boxed once here: the key object a real request carries (ASP.NET's
         * cache keys are objects), used for the lookup, the insert and the removal alike.
         */
        final void request(int key, long now) {
            maybeScan(now);
            requestEntry(key, now);
        }

        /** The implementation's request: look up, defend or read, allocate on miss. */
        abstract void requestEntry(Integer key, long now);

        @Override
        public abstract void close();
    }

    /** A worker for the calling thread. */
    abstract Worker worker();

    /** Frees (manual: abandons) the payload of an entry that left the map. */
    abstract void evict(E entry);

    /** The entry for {@code key} if present and not expired; an expired one is removed and evicted. */
    final E live(Integer key, long now) {
        E e = map.get(key);
        if (e == null) return null;
        if (!e.expired(now, expirationNanos)) return e;
        remove(key, e);
        return null;
    }

    /** Removes {@code e} if it is still the entry of {@code key}, and evicts it if this call removed it. */
    final void remove(Integer key, E e) {
        if (map.remove(key, e)) {
            evictions.increment();
            evict(e);
        }
    }

    /** Puts a new entry for {@code key}; the entry it replaced, if any, is evicted. */
    final void insert(Integer key, E fresh) {
        E old = map.put(key, fresh);
        if (old != null) {
            evictions.increment();
            evict(old);
        }
    }

    /** The value each byte of {@code key}'s payload holds. */
    static byte fillByte(int key) {
        return (byte) (key * 31 + 7);
    }

    /** Records a mismatch if byte {@code b} read from {@code key}'s payload is wrong. */
    final void check(int key, byte b) {
        if (b != fillByte(key)) mismatches.increment();
    }

    private void maybeScan(long now) {
        long due = nextScan;
        if (now - due < 0) return;
        if (!NEXT_SCAN.compareAndSet(this, due, now + expirationNanos / 2)) return; // another thread scans
        for (Map.Entry<Integer, E> me : map.entrySet()) {
            if (me.getValue().expired(now, expirationNanos)) remove(me.getKey(), me.getValue());
        }
    }

    /** Entries in the map now. */
    final int size() {
        return map.size();
    }

    /** Evicts every entry (end of a run). */
    final void clear() {
        for (Map.Entry<Integer, E> me : map.entrySet()) remove(me.getKey(), me.getValue());
    }

    /**
     * The handle of an entry class's {@code long lastAccess} field, found with the class's own
     * {@code lookup} (each entry class keeps it in a static final field: a constant for the JIT).
     */
    static VarHandle lastAccessHandle(MethodHandles.Lookup lookup, Class<? extends Entry> entryClass) {
        try {
            return lookup.findVarHandle(entryClass, "lastAccess", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final VarHandle NEXT_SCAN;

    static {
        try {
            NEXT_SCAN = MethodHandles.lookup().findVarHandle(SlidingCache.class, "nextScan", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
