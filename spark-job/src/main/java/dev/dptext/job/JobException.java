package dev.dptext.job;

/** A failure the job reports as one line and an {@link ExitCode}; never carries row content. */
final class JobException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final ExitCode exitCode;

  JobException(ExitCode exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }
}
