/**
 * Off-heap lock-free structures with Optimistic Access reclamation (the LRMalloc/OA paper,
 * {@code ../shared/papers/lrmalloc-optimistic-access-release.txt}, sections 2.4, 3 and 6).
 *
 * <h2>The idea in one page</h2>
 * Floe's allocator keeps every freed block readable (invariant 1), so a lock-free structure may
 * read a node that another thread has just freed — it only must not <em>believe</em> what it read.
 * Optimistic Access turns that into a reclamation scheme ({@link dev.floe.lockfree.Reclamation}):
 * <ol>
 *   <li>Readers walk nodes without announcing anything. After each node's loads they check a
 *       <em>warning</em>; a warning means some memory may have been freed since they started, so
 *       they restart from the head.</li>
 *   <li>A step that CASes nodes first publishes hazard pointers on them (three fixed slots per
 *       participant, one fence), then checks the warning once.</li>
 *   <li>An unlinked node goes to the participant's limbo list. A full list sends a warning and
 *       frees, straight back to the allocator, every node no hazard pointer holds. The allocator
 *       returns emptied superblocks to the OS, so memory falls after a mass delete.</li>
 * </ol>
 * Two warning mechanisms: OA-BIT (a bit per participant, set for everyone) and OA-VER (a global
 * clock, with piggy-backing). NR (never free) and
 * EBR are baselines behind the same protocol. The structures:
 * {@link dev.floe.lockfree.HarrisMichaelList} and {@link dev.floe.lockfree.MichaelHashTable},
 * both {@link dev.floe.lockfree.LockFreeLongMap}s over {@code HarrisMichaelCore}, whose class
 * comment gives the node layout and the algorithm; {@code OptimisticAccess} gives the safety
 * argument. {@code docs/lockfree.md} is the design note.
 */
package dev.floe.lockfree;
