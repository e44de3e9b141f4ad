package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.EraClock;
import dev.floe.reclaim.HazardSlots;
import dev.floe.reclaim.RetireBatches;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A manual heap (Snowflake's {@code ManualHeap}, paper section 3.2): creates manual objects in a
 * {@link FloeAllocator}'s region, each owned by one {@link Owner}, accessed through
 * {@link Shield shields}, and reclaimed by epochs ({@link EpochReclaimer}) once abandoned and no
 * longer shielded.
 *
 * <pre>{@code
 * try (FloeAllocator alloc = FloeAllocator.create()) {
 *     ManualHeap heap = new ManualHeap(alloc);
 *     Owner o = heap.create(64);                 // 64 zeroed bytes, owned by o
 *     try (Shield s = o.defend()) { s.setLong(0, 42); }
 *     o.abandon();                               // freed once no shield protects it
 * }
 * }</pre>
 *
 * <h2>Objects and the owner word</h2>
 * An object is exactly one allocator block of its size (no header: a 4 KiB object takes a 4 KiB
 * block, not the next size class). Its owner holds one {@code long}, written and exchanged
 * atomically, that names both the block and the object's length:
 * <pre>
 *   63   62 .......... offsetBits | offsetBits-1 ............ 0
 *   0  |  length in bytes          |  block offset in the region
 * </pre>
 * {@code offsetBits} is the number of bits the region's size needs (38 for the default 256 GiB
 * region), so objects may be up to {@code 2^(63 - offsetBits) - 1} bytes ({@link #maxObjectBytes()}).
 * 0 is the empty owner (offset 0 is never a block). Shield slots and retire lists hold the
 * offset alone.
 *
 * <p>The heap does not own the allocator and has no {@code close}: it keeps no list of its
 * objects, so it cannot free the ones still owned. Abandon them and call {@link #reclaim()} to
 * give their memory back to an allocator that other users keep open; otherwise close the
 * allocator when no thread uses the heap any more (every object, owned or waiting, goes with the
 * region). Close every shield first: a shield left open fails from then on
 * ({@link IllegalStateException}), and a {@link Shield#segment() view} taken before reads zeros
 * (never unmapped memory) until the shield closes. After the close, {@code create},
 * {@code createInto}, {@code newShield} (so {@link Owner#defend()}), {@link Owner#abandon()},
 * {@link Owner#move}, {@link RefCounted#release()} and {@link #reclaim()} throw
 * {@link IllegalStateException} and change nothing; closing a shield and the counters keep working.
 */
public final class ManualHeap {
    /**
     * Tuning of the reclamation.
     *
     * @param batch          abandons per retire batch (one reclamation round per batch and stripe),
     *                       in {@code [1, MAX_BATCH]}
     * @param ejectThreshold objects waiting in the limbo at which a participant that holds the
     *                       epoch back is ejected (the paper's "too many objects scheduled"), positive
     */
    public record Config(int batch, long ejectThreshold) {
        /**
         * The largest {@code batch}: every retire stripe keeps a batch array of this many offsets
         * (8 bytes each) from the start, so a larger one would only cost memory (and
         * {@code Integer.MAX_VALUE} would not even allocate).
         */
        public static final int MAX_BATCH = 1 << 16;

        /** Checks the values; see the record description for their ranges. */
        public Config {
            if (batch <= 0 || batch > MAX_BATCH) {
                throw new IllegalArgumentException("batch must be in [1, " + MAX_BATCH + "]: " + batch);
            }
            if (ejectThreshold <= 0) throw new IllegalArgumentException("ejectThreshold must be positive: " + ejectThreshold);
        }

        /** 64 abandons per batch, ejection at 1024 waiting objects. */
        public static Config defaults() {
            return new Config(64, 1024);
        }
    }

    private final FloeAllocator allocator;
    private final EraClock epochs = new EraClock();
    private final HazardSlots slots = new HazardSlots();
    private final EpochReclaimer reclaimer;
    private final RetireBatches retired;
    private final ThreadLocal<Participant> local = new ThreadLocal<>();
    /** Low bits of an owner word that hold the block offset (see the class comment). */
    private final int offsetBits;
    private final long offsetMask;
    private final long maxObjectBytes;

    /**
     * A heap on {@code allocator} with the {@link Config#defaults()}.
     *
     * @throws IllegalStateException if the allocator is closed
     */
    public ManualHeap(FloeAllocator allocator) {
        this(allocator, Config.defaults());
    }

    /**
     * A heap on {@code allocator} tuned by {@code config}.
     *
     * @throws IllegalStateException if the allocator is closed (as Nova's constructors: a heap on
     *                               it could only fail)
     */
    public ManualHeap(FloeAllocator allocator, Config config) {
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(config, "config");
        checkOpen();
        this.offsetBits = 64 - Long.numberOfLeadingZeros(allocator.region().size() - 1);
        this.offsetMask = (1L << offsetBits) - 1;
        this.maxObjectBytes = Math.min(allocator.maxAllocation(), (1L << (63 - offsetBits)) - 1);
        this.reclaimer = new EpochReclaimer(allocator, epochs, slots, config.ejectThreshold());
        this.retired = new RetireBatches(config.batch(), RetireBatches.defaultStripes(),
                (refs, count) -> reclaimer.drain(refs, count, local.get()));
    }

    /**
     * Creates a zeroed object of {@code bytes} bytes and returns its owner (paper:
     * {@code ManualHeap.Create}).
     *
     * @throws IllegalArgumentException if {@code bytes <= 0} or too large for the allocator
     * @throws dev.floe.memory.FloeOutOfMemoryException if the allocator's budget is exhausted
     *                                  (after a {@link #reclaim} of what was abandoned)
     */
    public Owner create(long bytes) {
        return create(bytes, (byte) 0);
    }

    /**
     * Creates an object of {@code bytes} bytes, each set to {@code fill}, and returns its owner.
     * (Every object starts initialized: a block's previous contents never show through.)
     *
     * @throws IllegalArgumentException if {@code bytes <= 0} or too large for the allocator
     * @throws dev.floe.memory.FloeOutOfMemoryException if the allocator's budget is exhausted
     *                                  (after a {@link #reclaim} of what was abandoned)
     */
    public Owner create(long bytes, byte fill) {
        return new Owner(this, newObject(bytes, fill)); // volatile publication: the contents happen-before
    }

    /**
     * Creates an object of {@code bytes} bytes, each set to {@code fill}, and gives it to
     * {@code owner}, whose previous object, if any, is abandoned (as {@link Owner#move} does).
     * This is how a class that embeds its owner ({@code extends Owner}, see {@link Owner}) gets
     * its object without a second owner.
     *
     * @throws IllegalArgumentException if {@code bytes <= 0} or too large for the allocator, or
     *                                  {@code owner} belongs to another heap (the owner is then unchanged)
     * @throws dev.floe.memory.FloeOutOfMemoryException if the allocator's budget is exhausted
     *                                  after a {@link #reclaim} (the owner is then unchanged)
     */
    public void createInto(Owner owner, long bytes, byte fill) {
        Objects.requireNonNull(owner, "owner");
        if (owner.heap() != this) throw new IllegalArgumentException("owner belongs to another heap");
        owner.install(newObject(bytes, fill)); // volatile exchange: the contents happen-before
    }

    /** Allocates and fills an object; returns its owner word. */
    private long newObject(long bytes, byte fill) {
        if (bytes <= 0 || bytes > maxObjectBytes) {
            throw new IllegalArgumentException("object size " + bytes + " is not in [1, " + maxObjectBytes + "]");
        }
        long offset;
        try {
            offset = allocator.allocate(bytes);
        } catch (dev.floe.memory.FloeOutOfMemoryException full) {
            // Abandoned objects keep their memory until a retire batch fills and their epochs
            // pass, which a thread that only creates never brings about, and a thread that holds
            // a shield while it works holds every epoch back until the limbo reaches the ejection
            // threshold (a count of objects, which large objects never reach before the budget):
            // reclaim what can be, ejecting such threads (always safe, EpochReclaimer), then try
            // once more (only on this path, which ends in the exception otherwise).
            reclaim(true);
            offset = allocator.allocate(bytes);
        }
        allocator.region().slice(offset, bytes).fill(fill);
        return bytes << offsetBits | offset;
    }

    /**
     * Creates a zeroed object laid out as {@code layout} (its size; alignment up to 8 bytes:
     * every object starts 8-byte aligned, whatever its size). Use the layout's var handles on
     * {@link Shield#segment()}.
     *
     * @throws IllegalArgumentException if the layout's alignment exceeds 8 bytes or its size is
     *                                  not in {@code [1, maxObjectBytes()]}
     * @throws dev.floe.memory.FloeOutOfMemoryException if the allocator's budget is exhausted
     *                                  (after a {@link #reclaim} of what was abandoned)
     */
    public Owner create(MemoryLayout layout) {
        Objects.requireNonNull(layout, "layout");
        if (layout.byteAlignment() > Long.BYTES) {
            throw new IllegalArgumentException("layout alignment " + layout.byteAlignment() + " exceeds 8 bytes");
        }
        return create(layout.byteSize());
    }

    /** An empty owner, to {@link Owner#move move} an object into later. */
    public Owner newOwner() {
        return new Owner(this, 0);
    }

    /**
     * An empty shield of the calling thread (paper: {@code Shield.Create()}): claims a hazard
     * slot; {@link Shield#defend} points it at objects; {@link Shield#close} gives the slot back.
     *
     * @throws IllegalStateException if the heap's allocator is closed (a shield could only fail)
     */
    public Shield newShield() {
        checkOpen();
        Participant p = local.get();
        if (p == null) {
            p = reclaimer.join();
            local.set(p);
        }
        int slot = slots.protect(Shield.EMPTY); // CAS: claim
        p.hold(slot);
        return new Shield(this, p, slot);
    }

    /**
     * Reclaims now whatever can be: drains every retire batch and runs enough rounds of the
     * epoch protocol for objects abandoned before the call to become old enough. Objects still
     * shielded, or held back by a participant that is behind and not ejected, stay waiting.
     *
     * @return objects still waiting for reclamation
     * @throws IllegalStateException if the heap's allocator is closed
     */
    public long reclaim() {
        return reclaim(false);
    }

    /** {@link #reclaim()}, ejecting every participant that holds the epoch back if {@code ejectLaggards}. */
    private long reclaim(boolean ejectLaggards) {
        checkOpen();
        retired.drainAll();
        for (long i = 0; i <= EpochReclaimer.GRACE_EPOCHS; i++) reclaimer.collect(local.get(), ejectLaggards);
        return waiting();
    }

    /** Objects abandoned and not yet freed (approximate while threads abandon). */
    public long waiting() {
        return retired.waiting() + reclaimer.waiting();
    }

    /** Objects freed so far. */
    public long freedCount() {
        return reclaimer.freed();
    }

    /** The global epoch. */
    public long epoch() {
        return epochs.current();
    }

    /** How many times a participant was ejected for holding the epoch back. */
    public long ejections() {
        return reclaimer.ejections();
    }

    /** How many times an ejected (or new) participant rejoined. */
    public long rejoins() {
        return reclaimer.rejoins();
    }

    /** Participant records currently registered (threads that opened shields and were not yet found ended). */
    public int participants() {
        return reclaimer.participantCount();
    }

    /** The allocator the heap's objects come from (the heap does not own it: see the class comment). */
    public FloeAllocator allocator() {
        return allocator;
    }

    /** The largest object {@link #create} accepts (see the owner word in the class comment). */
    public long maxObjectBytes() {
        return maxObjectBytes;
    }

    /**
     * Refuses an operation that would hand objects to, or take shields from, a closed allocator:
     * its memory is gone, so an abandon could only be lost (before, one abandon in a batch threw,
     * from the drain's free, and the others were silently accepted) and a shield could only fail.
     */
    void checkOpen() {
        if (allocator.isClosed()) throw new IllegalStateException("the heap's allocator is closed");
    }

    /** Schedules the object of owner word {@code word} for reclamation. */
    void retire(long word) {
        retired.add(offsetOf(word));
    }

    /** The block offset of a non-empty owner word: what shields publish and reclaimers free. */
    long offsetOf(long word) {
        return word & offsetMask;
    }

    /** The length in bytes of the object of a non-empty owner word. */
    long lengthOf(long word) {
        return word >>> offsetBits;
    }

    /** The bytes of the object of owner word {@code word}; the caller protects it. */
    MemorySegment objectData(long word) {
        return allocator.region().slice(offsetOf(word), lengthOf(word));
    }

    EraClock epochs() {
        return epochs;
    }

    HazardSlots slots() {
        return slots;
    }

    EpochReclaimer reclaimer() {
        return reclaimer;
    }
}
