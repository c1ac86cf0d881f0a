/**
 * A {@code sanitize} run: what it was asked ({@link dev.dptext.job.sanitize.SanitizeRequest}), the batch
 * run itself ({@link dev.dptext.job.sanitize.BatchSanitize}), and the steps a batch run and a stream
 * ({@link dev.dptext.job.stream}) share: the sanitizer and its key ({@link dev.dptext.job.sanitize.Sanitizers}),
 * how the rows are spread over the cores ({@link dev.dptext.job.sanitize.Spread}), and the checks of the
 * run's paths against each other ({@link dev.dptext.job.sanitize.RunPaths}).
 */
package dev.dptext.job.sanitize;
