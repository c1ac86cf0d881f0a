/**
 * The model a command loads from its settings ({@link dev.dptext.job.model.ModelOptions}), and
 * {@code build-model}'s partitioned build ({@link dev.dptext.job.model.PartitionedBuild}).
 */
package dev.dptext.job.model;
