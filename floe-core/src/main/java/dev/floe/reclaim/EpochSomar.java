package dev.floe.reclaim;

import dev.floe.memory.FloeAllocator;
import java.util.Objects;

/**
 * Epoch-based reclamation (EBR, Fraser) adapted to SOMAR: the {@code floe-ebr} baseline of the
 * Nova paper's evaluation (section 4.1, "the SOMAR approach": every access is wrapped in
 * protect / unprotect). Not robust, on purpose: a stalled access blocks <em>all</em>
 * reclamation, which is what the comparison with Nova is meant to show.
 *
 * <h2>Shared parts</h2>
 * Slices, headers and safe pointers are Nova's ({@link SliceAccess}: version, deleted bit,
 * length; the same pointer validation and bounded views), so a copy of a pointer that outlives
 * its slice's delete still fails. The epoch is the allocator's version {@link EraClock} (shared
 * with every scheme instance on the allocator, see {@link SliceAccess}; other instances'
 * advances only make it move faster); announcements live in
 * {@link HazardSlots}; deleted slices wait in {@link RetireBatches}, and those a drain cannot
 * free yet wait in an {@link EraLimbo} with the epoch they were retired in.
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li><b>pin</b> (around every read and write): read the epoch (volatile) and publish it in a
 *       hazard slot with one CAS (full fence). The slot holds the epoch itself: the clock starts
 *       at 1 and only grows, so an announcement is never 0, the free-slot mark. Unpin is the
 *       slot's release-store clear, after the reader's loads or the writer's stores.</li>
 *   <li><b>read / write</b>: pin; volatile-load the header and match it against the pointer
 *       (version, deleted bit, bounds: as Nova); run the lambda on a read-only (read) or
 *       writable (write) view of exactly the slice; unpin. No post-validation: the pin keeps the
 *       slice from being freed, so what the reader saw belongs to the incarnation it validated
 *       (a delete during the access is fine: the access is ordered before it).</li>
 *   <li><b>delete</b>: CAS the header's deleted bit (one winner), append the header offset to
 *       the retire batches.</li>
 *   <li><b>drain</b> (a full batch, on the thread that seals it, with RetireBatches' helping):
 *       advance the epoch (atomic increment, full fence) and stamp the batch with the epoch it
 *       was sealed in, {@code e = new - 1}; snapshot the announcements once and free each group
 *       (this batch and those earlier drains kept) whose every announced epoch is greater than
 *       its stamp (or none is announced); park what this batch keeps with {@code e}
 *       ({@code EraLimbo.drain}).</li>
 *   <li><b>allocate</b>: take a block, publish its header with the current epoch as version.</li>
 * </ul>
 * The paper's EBR advances the epoch only when every thread has seen it; here the epoch advances
 * at every drain, as Nova's era does, and the rule "free when every announcement is newer than
 * the batch" replaces the two-epoch grace period (the announcement is followed by a header
 * validation, which is the argument below).
 *
 * <h2>Why it is correct</h2>
 * All loads and CASes on the clock, the slots and the headers named here are volatile-mode, so
 * they are totally ordered (consistently with program order and happens-before).
 * <br><b>No access touches a freed slice.</b> Take an access that validated the header live and
 * a batch holding the slice, stamped {@code e} and freed after a snapshot {@code S}. The
 * access's validation load precedes the delete CAS (else it sees the deleted bit), which
 * precedes the drain's advance and {@code S}. If {@code S} saw the access's slot, its epoch
 * {@code a} was read before the validation, so before the advance: {@code a <= e}, and the batch
 * is not freed. If {@code S} did not see the slot, the pin's CAS comes after {@code S} (a slot is
 * cleared only after the access), so the validation load comes after the delete and fails.
 * An announcement {@code a > e} was read after the advance from {@code e}, so its validation
 * follows the delete too: such accesses cannot block the batch, and need not.
 * <br><b>A reused block never matches an old pointer.</b> A slice is freed only after the
 * advance past its stamp, which is at least its version; reallocation takes the new epoch as
 * version (modulo the 2^27 wrap of {@link SafePointer}).
 * <br><b>Not robust.</b> A thread stalled inside an access keeps its announcement {@code a}, and
 * no batch sealed at epoch {@code a} or later is ever freed while it stays: memory waiting for
 * reclamation then grows with every delete, whatever slices the stalled thread touched.
 * <br><b>Progress.</b> Every operation is lock-free (hazard-slot claims grow the table instead
 * of waiting; appends are one increment; a stalled sealer's batch is drained by others).
 */
public final class EpochSomar extends RetiringSomar {

    /**
     * EBR on {@code allocator} with Nova's {@link Nova#DEFAULT_BATCH}.
     *
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if its region is larger than safe pointers address
     */
    public EpochSomar(FloeAllocator allocator) {
        this(allocator, Nova.DEFAULT_BATCH);
    }

    /**
     * EBR on {@code allocator} with retire batches of {@code batch} deletes.
     *
     * @param batch deletes per retire batch (one epoch advance per batch, as Nova's N), 1 to {@link Nova#MAX_BATCH}
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if {@code batch} is out of range, or the region is larger
     *                                  than safe pointers address
     */
    public EpochSomar(FloeAllocator allocator, int batch) {
        super(allocator, "EpochSomar", batch, false);
    }

    @Override
    public <R> R readOr(long ptr, SliceReader<R> reader, R onFailure) {
        Objects.requireNonNull(reader, "reader");
        return announcedAccess(ptr, false, reader, null, null, onFailure); // pin: announce once
    }

    @Override
    public <P, R> R writeOr(long ptr, SliceWriter<P, R> writer, P param, R onFailure) {
        Objects.requireNonNull(writer, "writer");
        return announcedAccess(ptr, false, null, writer, param, onFailure);
    }

    /** EBR's rule: a batch retired in epoch {@code e} is free once every announcement is newer. */
    @Override
    int release(long e, long[] refs, int count, HazardSnapshot announced) {
        long oldest = announced.smallest(); // MAX_VALUE if no access is announced
        if (oldest <= e) return count; // an access pinned at or before e may still hold any of them
        access.freeAll(refs, 0, count);
        return 0;
    }

    /** The current epoch. */
    public long epoch() {
        return clock.current();
    }
}
