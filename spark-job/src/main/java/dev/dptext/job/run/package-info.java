/**
 * What a {@code sanitize} run reports: its end-of-run summary and audit record
 * ({@link dev.dptext.job.run.RunSummary}: counts, privacy parameters, timing; never text or a key), and its
 * progress while it works ({@link dev.dptext.job.run.ProgressReporter}).
 */
package dev.dptext.job.run;
