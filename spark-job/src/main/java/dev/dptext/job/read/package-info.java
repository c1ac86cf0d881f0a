/**
 * The job's input: its formats ({@link dev.dptext.job.read.DataFormat}), a table read (or streamed) with
 * the records that cannot be sanitized identified rather than dropped ({@link dev.dptext.job.read.InputTable}),
 * and the check of those records carried out by the write's own read ({@link dev.dptext.job.read.InputGuard}).
 */
package dev.dptext.job.read;
