/**
 * The privacy ledger: how much ε each source row has spent across releases (docs/ledger.md).
 *
 * <p>A release is one run (or one micro-batch) that writes sanitized text of some rows of a source. Its
 * record ({@link Release}) names the source and the snapshot read, the rows (their ids as ranges,
 * {@link ReleasedRows}), the mechanism and its ε, a fingerprint of the key and of every setting the output
 * depends on. {@link Spending} adds ε up per row under basic composition, exact about what repeats: a
 * release that repeats an earlier one (same key, settings, source snapshot and id column) emits the same
 * text for the rows both cover, so it adds nothing there; anything else adds its ε.
 *
 * <p>The ledger is an append-only Delta table ({@link LedgerTable}). A run records its release BEFORE it
 * writes ({@code intended}), and afterwards {@code committed} or, when it refuses to write,
 * {@code withdrawn}: a crash anywhere leaves the release counted (the ledger may over-count, never
 * under-count). Only DataFrames and Delta's writer options are used, so it works on classic sessions and
 * through Spark Connect alike.
 */
package dev.dptext.job.ledger;
