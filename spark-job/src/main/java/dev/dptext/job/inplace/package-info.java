/**
 * A run whose output is its input: found before anything is read ({@link dev.dptext.job.inplace.InPlace}),
 * refused by default, otherwise carried out by its policy ({@link dev.dptext.job.inplace.InPlacePolicy}),
 * and for {@code purge-history} the swap of the sanitized table into the raw one's place: one purge of a
 * table at a time (a lock), the new table's log fenced past the raw one's so that no commit prepared from
 * the raw table lands in it, verified after the swap, and recovered after a crash at any step
 * ({@link dev.dptext.job.inplace.InPlaceSwap}).
 */
package dev.dptext.job.inplace;
