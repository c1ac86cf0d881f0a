package dev.dptext.embedding;

/** An embedding file that cannot be read; the message names the file, the line and the fix. */
public final class EmbeddingFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public EmbeddingFormatException(String message) {
    super(message);
  }

  public EmbeddingFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
