package dev.floe.bench.manual;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * {@code gc-g1}: payloads are {@code byte[]} on the Java heap, collected by G1 after the entry
 * leaves the cache (the paper's unmodified ASP.NET cache).
 */
final class HeapPayloadCache extends SlidingCache<HeapPayloadCache.HeapEntry> {

    static final class HeapEntry implements SlidingCache.Entry {
        private static final VarHandle LAST_ACCESS = SlidingCache.lastAccessHandle(MethodHandles.lookup(), HeapEntry.class);

        final byte[] payload;
        @SuppressWarnings("unused") // through LAST_ACCESS
        private long lastAccess;

        HeapEntry(byte[] payload, long now) {
            this.payload = payload;
            LAST_ACCESS.setOpaque(this, now);
        }

        @Override
        public long lastAccess() {
            return (long) LAST_ACCESS.getOpaque(this);
        }

        @Override
        public void touch(long now) {
            LAST_ACCESS.setOpaque(this, now);
        }
    }

    HeapPayloadCache(int payloadBytes, long expirationMs) {
        super(payloadBytes, expirationMs);
    }

    @Override
    Worker worker() {
        return new Worker() {
            @Override
            void requestEntry(Integer key, long now) {
                HeapEntry e = live(key, now);
                byte[] p;
                if (e != null) {
                    e.touch(now);
                    p = e.payload;
                    hits.increment();
                } else {
                    p = new byte[payloadBytes];
                    Arrays.fill(p, fillByte(key));
                    insert(key, new HeapEntry(p, now));
                    misses.increment();
                }
                for (int i = 0; i < 8; i++) check(key, p[i * (payloadBytes - 1) / 7]);
            }

            @Override
            public void close() {
                // holds nothing
            }
        };
    }

    @Override
    void evict(HeapEntry entry) {
        // the collector reclaims the payload once no request reads it
    }

    @Override
    public void close() {
        clear();
    }
}
