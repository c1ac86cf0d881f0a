/**
 * What every package of the job shares, and nothing else: the process exit codes
 * ({@link dev.dptext.job.base.ExitCode}) and the one-line failure that carries one
 * ({@link dev.dptext.job.base.JobException}), the job's session ({@link dev.dptext.job.base.JobSession}), its
 * version ({@link dev.dptext.job.base.Version}) and whether a value names a catalog table or a path
 * ({@link dev.dptext.job.base.TableName}). It imports no other package of the job
 * ({@code dev.dptext.arch.JobLayersTest}).
 */
package dev.dptext.job.base;
