package dev.floe.map;

/**
 * The key range and direction of a map view: optional low and high bounds (each inclusive or
 * exclusive; a null bound is unbounded) and whether the view iterates descending. Immutable; the
 * navigation methods of {@link OakMap} views and the scans work against it.
 */
record KeyRange(Object lo, boolean loInclusive, Object hi, boolean hiInclusive, boolean descending) {
    static final KeyRange ALL = new KeyRange(null, false, null, false, false);

    /** Whether {@code probe} is not below the low bound. */
    boolean aboveLow(KeySlices<?> keys, Object probe) {
        if (lo == null) return true;
        int c = keys.compareProbes(probe, lo);
        return c > 0 || (c == 0 && loInclusive);
    }

    /** Whether {@code probe} is not above the high bound. */
    boolean belowHigh(KeySlices<?> keys, Object probe) {
        if (hi == null) return true;
        int c = keys.compareProbes(probe, hi);
        return c < 0 || (c == 0 && hiInclusive);
    }

    boolean contains(KeySlices<?> keys, Object probe) {
        return aboveLow(keys, probe) && belowHigh(keys, probe);
    }

    /** This range (ascending) with its low bound raised to {@code k} if that is tighter. */
    KeyRange from(KeySlices<?> keys, Object k, boolean inclusive) {
        Object l = lo;
        boolean li = loInclusive;
        if (l == null || tighterLow(keys, k, inclusive)) {
            l = k;
            li = inclusive;
        }
        return new KeyRange(l, li, hi, hiInclusive, false);
    }

    /** This range (descending) with its high bound lowered to {@code k} if that is tighter. */
    KeyRange to(KeySlices<?> keys, Object k, boolean inclusive) {
        Object h = hi;
        boolean hin = hiInclusive;
        if (h == null || tighterHigh(keys, k, inclusive)) {
            h = k;
            hin = inclusive;
        }
        return new KeyRange(lo, loInclusive, h, hin, true);
    }

    private boolean tighterLow(KeySlices<?> keys, Object k, boolean inclusive) {
        int c = keys.compareProbes(k, lo);
        return c > 0 || (c == 0 && !inclusive);
    }

    private boolean tighterHigh(KeySlices<?> keys, Object k, boolean inclusive) {
        int c = keys.compareProbes(k, hi);
        return c < 0 || (c == 0 && !inclusive);
    }

    KeyRange ascending() {
        return descending ? reversed() : this;
    }

    KeyRange reversed() {
        return new KeyRange(lo, loInclusive, hi, hiInclusive, !descending);
    }

    /**
     * The intersection with [from, to] given in this view's iteration order (a subMap call on a
     * descending view names its bounds from high to low).
     */
    KeyRange sub(KeySlices<?> keys, Object from, boolean fromInclusive, Object to, boolean toInclusive) {
        Object l = from, h = to;
        boolean li = fromInclusive, hi2 = toInclusive;
        if (descending) {
            l = to;
            li = toInclusive;
            h = from;
            hi2 = fromInclusive;
        }
        // ConcurrentSkipListMap's rule: the new low bound must lie within this range's low
        // bound, the new high bound within its high bound
        if (l != null && lo != null) {
            int c = keys.compareProbes(l, lo);
            if (c < 0 || (c == 0 && !loInclusive && li)) throw new IllegalArgumentException("key out of range");
        }
        if (h != null && hi != null) {
            int c = keys.compareProbes(h, hi);
            if (c > 0 || (c == 0 && !hiInclusive && hi2)) throw new IllegalArgumentException("key out of range");
        }
        Object newLo = l == null ? lo : l;
        boolean newLoInc = l == null ? loInclusive : li;
        Object newHi = h == null ? hi : h;
        boolean newHiInc = h == null ? hiInclusive : hi2;
        if (newLo != null && newHi != null && keys.compareProbes(newLo, newHi) > 0) {
            throw new IllegalArgumentException("inconsistent range"); // also with an inherited bound
        }
        return new KeyRange(newLo, newLoInc, newHi, newHiInc, descending);
    }

}
