/**
 * A {@code sanitize} run: what it was asked ({@link dev.dptext.job.sanitize.SanitizeRequest}, the options as
 * given), its plan ({@link dev.dptext.job.sanitize.RunSettings}: the settings read and checked once, the id
 * mode, the sanitizer and its key, which every later phase takes), the batch run in named phases
 * ({@link dev.dptext.job.sanitize.BatchSanitize}), and what a batch run and a stream
 * ({@link dev.dptext.job.stream}) share: the input as read ({@link dev.dptext.job.sanitize.InputRead}),
 * the sanitizer's failures ({@link dev.dptext.job.sanitize.Sanitizers}), how the rows are spread over the
 * cores ({@link dev.dptext.job.sanitize.Spread}), and the checks of the run's paths against each other
 * ({@link dev.dptext.job.sanitize.RunPaths}).
 */
package dev.dptext.job.sanitize;
