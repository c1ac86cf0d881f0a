/**
 * The job's output: what is at the output before a run writes there
 * ({@link dev.dptext.job.write.OutputLocation}), how the rows land ({@link dev.dptext.job.write.WriteMode},
 * {@link dev.dptext.job.write.TableWriter}: rows and audit in one commit, idempotent transactions,
 * conflicts), what the write path reads of a Delta table through public SQL only
 * ({@link dev.dptext.job.write.DeltaTables}), and the output formats and the small files next to an
 * output ({@link dev.dptext.job.write.OutputFormat}).
 */
package dev.dptext.job.write;
