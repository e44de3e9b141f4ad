/**
 * The {@code lockfree} benchmark suite ({@link dev.floe.bench.lockfree.LockfreeSuite}): the
 * LRMalloc/OA paper's section 6 — Harris–Michael list and Michael hash tables under OA-BIT,
 * OA-VER, NR and EBR — and the memory a mass delete gives back.
 */
package dev.floe.bench.lockfree;
