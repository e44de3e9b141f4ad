package dev.floe.reclaim;

import dev.floe.memory.FloeAllocator;
import java.util.Objects;

/**
 * Hazard Eras (Ramalhete and Correia, SPAA 2017) adapted to SOMAR: the {@code floe-he} baseline
 * of the Nova paper's evaluation (section 4.1, "the SOMAR approach": every access is wrapped in
 * protect / unprotect). A stalled access blocks only the slices whose lifetime spans the era it
 * announced, not all reclamation as under {@link EpochSomar}.
 *
 * <h2>Shared parts</h2>
 * Slices, headers and safe pointers are Nova's ({@link SliceAccess}), so stale copies of a
 * pointer fail after its delete. The era is the allocator's version {@link EraClock} (shared
 * with every scheme instance on the allocator, see {@link SliceAccess}); announcements live in
 * {@link HazardSlots}; deleted slices wait in {@link RetireBatches}, and those a drain cannot
 * free yet wait in an {@link EraLimbo} with their retire era.
 *
 * <h2>Eras of a slice</h2>
 * <ul>
 *   <li><b>birth era</b>: the era at allocation, which is the slice's version (Nova's rule). The
 *       header keeps only its low 27 bits, and a retired header is not written again until its
 *       block is reallocated, so the drain reads the version back and takes as birth the latest
 *       era at or before the retire era with those low bits (one era earlier for version 1,
 *       which {@link EraClock#version} also gives to eras that are multiples of 2^27). That is
 *       exact while a slice lives fewer than 2^27 eras, the same bound as the version wrap of
 *       {@link SafePointer}; any error only makes the birth earlier, which is safe.</li>
 *   <li><b>retire era</b>: stamped per batch at its drain, {@code r = advance() - 1}: the era in
 *       which the batch was sealed, at or after every delete in it (a later stamp only widens the
 *       lifetime, which is safe).</li>
 * </ul>
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li><b>protect</b> (around every read and write): read the era, publish it in a hazard slot
 *       (one CAS, full fence), volatile-load the header and match it against the pointer, then
 *       re-read the era; if it moved, re-publish the new one and validate again (HE's
 *       {@code get_protected} loop: the announcement must be current <em>after</em> the load it
 *       protects). Unprotect is the slot's release-store clear.</li>
 *   <li><b>read / write</b>: protect; run the lambda on a read-only (read) or writable (write)
 *       view of exactly the slice; unprotect. No post-validation: the slice cannot be freed while
 *       the announcement lies in its lifetime.</li>
 *   <li><b>delete</b>: CAS the header's deleted bit (one winner), append to the retire batches.</li>
 *   <li><b>drain</b> (a full batch, on the thread that seals it): advance the era (atomic
 *       increment, full fence), stamp {@code r}; snapshot the announcements once (sorted) and
 *       free every slice of this batch and of the groups earlier drains kept whose lifetime
 *       {@code [birth, stamp]} holds no announced era (one binary search); park the others, this
 *       batch's with {@code r} ({@code EraLimbo.drain}).</li>
 * </ul>
 *
 * <h2>Why it is correct</h2>
 * All loads and CASes on the clock, the slots and the headers named here are volatile-mode, so
 * they are totally ordered (consistently with program order and happens-before). Take an access
 * that validated the slice live with announcement {@code a}, and a drain that frees it after the
 * snapshot {@code S}.
 * <br><b>{@code a <= r}</b>: {@code a} was read before the validation load, which precedes the
 * delete CAS (else it sees the deleted bit), which precedes the drain's advance from {@code r}.
 * <br><b>{@code a >= birth}</b>: the validation load saw the header the allocation published,
 * after reading {@code birth} from the clock; the era re-read that follows the validation is
 * ordered after that, so it returns at least {@code birth}, and the loop only exits when the
 * re-read equals {@code a}. (Without the loop, a pointer obtained through a racy publication
 * could be validated under an announcement older than its slice.)
 * <br>So {@code a} lies in {@code [birth, r]}: if {@code S} saw the slot, the slice is kept. If
 * not, the publication comes after {@code S}, and its validation after the delete: it fails.
 * A reused block never matches an old pointer: it is freed after the advance past {@code r},
 * at least its version, and reallocated with the new era as version (modulo the 2^27 wrap).
 * <br><b>Robustness</b>: a thread stalled with announcement {@code a} holds back only the
 * slices born at or before {@code a} and retired at or after it, i.e. at most the slices that
 * were live in era {@code a} (bounded by the live set then), unlike EBR.
 * <br><b>Progress</b>: the protect loop repeats only when the era advanced meanwhile (once per
 * drain of a batch of deletes), so it is lock-free; the rest is as in {@link EpochSomar}.
 */
public final class HazardErasSomar extends RetiringSomar {
    /**
     * Hazard eras on {@code allocator} with Nova's {@link Nova#DEFAULT_BATCH}.
     *
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if its region is larger than safe pointers address
     */
    public HazardErasSomar(FloeAllocator allocator) {
        this(allocator, Nova.DEFAULT_BATCH);
    }

    /**
     * Hazard eras on {@code allocator} with retire batches of {@code batch} deletes.
     *
     * @param batch deletes per retire batch (one era advance per batch, as Nova's N), 1 to {@link Nova#MAX_BATCH}
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if {@code batch} is out of range, or the region is larger
     *                                  than safe pointers address
     */
    public HazardErasSomar(FloeAllocator allocator, int batch) {
        super(allocator, "HazardErasSomar", batch, false);
    }

    @Override
    public <R> R readOr(long ptr, SliceReader<R> reader, R onFailure) {
        Objects.requireNonNull(reader, "reader");
        return announcedAccess(ptr, true, reader, null, null, onFailure); // protect: until the era is stable
    }

    @Override
    public <P, R> R writeOr(long ptr, SliceWriter<P, R> writer, P param, R onFailure) {
        Objects.requireNonNull(writer, "writer");
        return announcedAccess(ptr, true, null, writer, param, onFailure);
    }

    /** HE's rule: free each slice whose lifetime [birth, r] holds no announced era. */
    @Override
    int release(long r, long[] refs, int count, HazardSnapshot announced) {
        int kept = 0;
        for (int i = 0; i < count; i++) { // refs[0..kept): still in use; refs[kept..i): to free
            long ref = refs[i];
            if (announced.anyWithin(birthEra(access.retiredVersion(ref), r), r)) {
                refs[i] = refs[kept];
                refs[kept++] = ref;
            }
        }
        access.freeAll(refs, kept, count);
        return kept;
    }

    /** The latest era at or before {@code retire} that allocation could have given {@code version}. */
    static long birthEra(int version, long retire) {
        long birth = retire - ((retire - version) & EraClock.VERSION_MASK);
        return version == 1 ? birth - 1 : birth; // version 1 also stands for eras = 0 mod 2^27
    }

    /** The current era. */
    public long era() {
        return clock.current();
    }
}
