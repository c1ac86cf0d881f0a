/**
 * {@code sanitize --stream}: the input as a Structured Streaming query
 * ({@link dev.dptext.job.stream.SanitizeStream}), each micro-batch written exactly once through the batch
 * write path ({@link dev.dptext.job.stream.StreamBatchWriter}), the query's checkpoint checked against its
 * input and output ({@link dev.dptext.job.stream.StreamCheckpoint}), and when and how much it reads
 * ({@link dev.dptext.job.stream.StreamSettings}).
 */
package dev.dptext.job.stream;
