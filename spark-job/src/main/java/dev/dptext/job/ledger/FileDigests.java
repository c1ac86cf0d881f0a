package dev.dptext.job.ledger;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import dev.dptext.runtime.Storage;
import org.apache.spark.sql.SparkSession;

/**
 * The identity of what a run read from files: the SHA-256 of each file's bytes, streamed through the file
 * system's client (the driver reads every byte once; BENCHMARKS.md has the cost). No weaker identity (size,
 * modification time, a name) stands in for it: content replaced with the same size and time is a new
 * snapshot. A file system's own checksum (HDFS's composite CRC, an object's ETag) would be cheaper but is
 * not the same function everywhere, or not an exact content identity, so it is not used.
 */
final class FileDigests {
  /** Files digested at once: their reads overlap on object stores; SHA-256 itself is one core's work. */
  private static final int THREADS = 4;

  private static final int BUFFER = 1 << 20;

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FileDigests.class);

  private FileDigests() {}

  /**
   * {@code files:<sha256>} over the sorted SHA-256 of every file's bytes, or null when a file cannot be
   * read (the snapshot is then unknown, and the release never repeats).
   */
  static String snapshot(SparkSession spark, List<String> files) {
    if (files.isEmpty()) {
      return "files:" + Release.sha256("");
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(THREADS, files.size()), r -> {
      Thread t = new Thread(r, "dptext-file-digest");
      t.setDaemon(true);
      return t;
    });
    long start = System.nanoTime();
    java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
    try {
      List<Future<String>> pending = new ArrayList<>();
      for (String f : files) {
        Storage fs = Storage.of(spark, path(f));
        pending.add(pool.submit(() -> sha256(fs, f, bytes)));
      }
      List<String> digests = new ArrayList<>();
      for (Future<String> d : pending) {
        digests.add(d.get());
      }
      digests.sort(null);
      LOG.info("ledger: digested {} file(s), {} bytes, in {} ms", files.size(), bytes.get(),
          (System.nanoTime() - start) / 1_000_000);
      return "files:" + Release.sha256(String.join("\n", digests));
    } catch (ExecutionException e) {
      return null;
    } catch (Storage.Unreachable e) {
      // A Spark Connect client without Hadoop reading, through its server, files of another scheme: what they
      // hold is not known here, so the release counts and never repeats (an over-count, never an under-count).
      LOG.warn("ledger: the input's files cannot be read from this program ({}); the release is recorded with an "
          + "unknown snapshot", dev.dptext.job.base.JobException.firstLine(e.getMessage()));
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } finally {
      pool.shutdownNow();
    }
  }

  /** The path a URI of {@code Dataset.inputFiles} names, decoded ({@code %20} is a space in a path). */
  static String path(String uri) {
    URI u = URI.create(uri);
    if (u.getScheme() == null) {
      return u.getPath();
    }
    return u.getScheme() + ":" + (u.getAuthority() == null ? "" : "//" + u.getAuthority()) + u.getPath();
  }

  /** The SHA-256 (hex) of the file at {@code uri} (as inputFiles lists it); adds its size to {@code bytes}. */
  static String sha256(Storage fs, String uri, java.util.concurrent.atomic.AtomicLong bytes) throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available in this JVM", e);
    }
    byte[] buffer = new byte[BUFFER];
    try (InputStream in = fs.open(path(uri))) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        sha.update(buffer, 0, n);
        bytes.addAndGet(n);
      }
    }
    return HexFormat.of().formatHex(sha.digest());
  }
}
