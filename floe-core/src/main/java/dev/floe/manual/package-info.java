/**
 * Snowflake (Parkinson et al., "Project Snowflake: Non-blocking Safe Manual Memory Management in
 * .NET", OOPSLA 2017) for the JVM: off-heap objects with a unique {@link dev.floe.manual.Owner},
 * accessed through scoped {@link dev.floe.manual.Shield shields}, freed at any program point
 * without use-after-free.
 *
 * <h2>The model in one page</h2>
 * <ol>
 *   <li>{@link dev.floe.manual.ManualHeap#create} allocates an object (a byte length or an FFM
 *       {@code MemoryLayout}) and returns its owner. The owner can live in any field and be
 *       shared through it, or be embedded in its container (a class that extends
 *       {@link dev.floe.manual.Owner} and gets its object from
 *       {@link dev.floe.manual.ManualHeap#createInto}), as the paper's owner struct is.</li>
 *   <li>To touch the object, open a shield: {@code try (Shield s = owner.defend()) { ... }}. While
 *       it is open the object cannot be reclaimed, whatever other threads do; the shield's
 *       accessors and {@link dev.floe.manual.Shield#segment() view} are bounded to the object.</li>
 *   <li>{@link dev.floe.manual.Owner#abandon()} ends the object's life: no new shield can be
 *       obtained, and the memory goes back to the allocator once no open shield protects it.
 *       {@link dev.floe.manual.Owner#move} transfers ownership (abandoning the receiver's old
 *       object).</li>
 *   <li>An object with several owners goes into a {@link dev.floe.manual.RefCounted}: each
 *       reference is retained and released on its own, and the last release abandons it.</li>
 * </ol>
 * Reclamation is deferred with epochs: shields are hazard slots, abandoned objects are stamped
 * with the epoch of their abandon, the global epoch advances when every participating thread has
 * seen it, and an object three epochs old that no slot holds is freed
 * ({@link dev.floe.manual.EpochReclaimer}). A thread that stalls while it participates is
 * ejected, so it never blocks reclamation for long, and rejoins at its next defend.
 *
 * <h2>What is checked at run time, and what is not</h2>
 * The paper's C# front end forbids copying owners and shields and letting an object escape its
 * shield. Java cannot check those rules at compile time; Floe enforces what it can at run time:
 * <ul>
 *   <li>an owner's reference is never exposed, so an object cannot get a second owner;
 *       {@code abandon} on an empty owner, {@code move} from an empty owner or onto itself throw;</li>
 *   <li>a closed shield refuses every use; a shield refuses use from any thread but its creator
 *       ({@link java.lang.WrongThreadException});</li>
 *   <li>accessors are bounds-checked; {@code Shield.segment()} is owned by a confined arena that
 *       closes with the shield (or when it defends another object), so the view cannot be used
 *       after the protection ends nor from another thread.</li>
 * </ul>
 * Left to the programmer (documented, not enforced): not storing a {@code Shield} where another
 * thread finds it (it would only fail there), closing every shield (an unclosed shield keeps its
 * object alive until the thread ends) and doing so before the allocator closes (a shield left
 * open fails then, and a view it gave out before reads zeros after the close), and not
 * copying data read through a shield into places that assume it stays current after the owner
 * is abandoned.
 *
 * <p>Design note: {@code docs/manual.md}.
 */
package dev.floe.manual;
