/**
 * What the job's tests share, whatever package they test: the one Spark session of the test JVM
 * ({@link dev.dptext.job.testing.SharedSpark}), a Spark Connect server ({@link dev.dptext.job.testing.ConnectServer}),
 * the job run in this JVM with its output captured, a key, a model, the sample tickets and the canary
 * ({@link dev.dptext.job.testing.JobFixtures}), the canary tickets the write-path and in-place tests
 * sanitize ({@link dev.dptext.job.testing.CanaryTickets}), the job as a process of its own
 * ({@link dev.dptext.job.testing.JobProcess}) and a sandbox for the launcher script
 * ({@link dev.dptext.job.testing.LauncherSandbox}).
 */
package dev.dptext.job.testing;
