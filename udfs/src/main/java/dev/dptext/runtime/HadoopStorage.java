package dev.dptext.runtime;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.SparkSession;

/**
 * {@link Storage} through Hadoop's file system client, with the session's Hadoop configuration: every scheme
 * Hadoop has a connector for. Loaded only where Hadoop is, so a Spark Connect client's classpath without it
 * never loads it.
 */
public final class HadoopStorage implements Storage {
  private final Configuration conf;

  private HadoopStorage(Configuration conf) {
    this.conf = conf;
  }

  public static Storage of(SparkSession spark) {
    return new HadoopStorage(HadoopConf.of(spark));
  }

  /** With {@code conf}: an executor's (the model read where tasks run). */
  public static Storage of(Configuration conf) {
    return new HadoopStorage(conf);
  }

  private FileSystem fs(Path p) throws IOException {
    return p.getFileSystem(conf);
  }

  private static String strip(String s) {
    return s.length() > 1 && s.endsWith("/") && !s.endsWith(":/") ? s.replaceAll("/+$", "") : s;
  }

  @Override
  public String qualified(String path) throws IOException {
    Path p = new Path(path);
    return strip(fs(p).makeQualified(p).toString());
  }

  @Override
  public String resolved(String path) throws IOException {
    Path p = new Path(path);
    FileSystem fs = fs(p);
    Path q = fs.makeQualified(p);
    if ("file".equals(q.toUri().getScheme())) {
      java.nio.file.Path real = LocalStorage.realLocal(java.nio.file.Path.of(q.toUri().getPath()), 0);
      return strip(fs.makeQualified(new Path("file", null, real.toString())).toString());
    }
    Deque<String> tail = new ArrayDeque<>();
    for (Path existing = q; existing != null; existing = existing.getParent()) {
      try {
        Path r = fs.resolvePath(existing);
        for (String name : tail) {
          r = new Path(r, name);
        }
        return strip(r.toString());
      } catch (FileNotFoundException absent) {
        tail.push(existing.getName());
      } catch (IOException unreadable) {
        // E.g. no permission to look at a parent: links are rare off the local file system (HDFS has
        // them off by default), so the qualified path stands rather than failing the run here.
        break;
      }
    }
    return strip(q.toString());
  }

  private static Entry entry(FileStatus f) {
    return new Entry(f.getPath().toString(), f.getPath().getName(), f.isDirectory(), f.isDirectory() ? 0 : f.getLen(),
        f.getModificationTime());
  }

  @Override
  public Optional<Entry> status(String path) throws IOException {
    Path p = new Path(path);
    try {
      return Optional.of(entry(fs(p).getFileStatus(p)));
    } catch (FileNotFoundException e) {
      return Optional.empty();
    }
  }

  @Override
  public List<Entry> list(String dir) throws IOException {
    Path p = new Path(dir);
    List<Entry> out = new ArrayList<>();
    for (FileStatus f : fs(p).listStatus(p)) {
      out.add(entry(f));
    }
    return out;
  }

  @Override
  public List<Entry> files(String path) throws IOException {
    Path p = new Path(path);
    List<Entry> out = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> it = fs(p).listFiles(p, true);
    while (it.hasNext()) {
      out.add(entry(it.next()));
    }
    return out;
  }

  @Override
  public List<String> glob(String pattern) throws IOException {
    Path p = new Path(pattern);
    FileStatus[] matches = fs(p).globStatus(p);
    List<String> out = new ArrayList<>();
    if (matches != null) {
      for (FileStatus m : matches) {
        out.add(m.getPath().toString());
      }
    }
    return out;
  }

  @Override
  public InputStream open(String path) throws IOException {
    Path p = new Path(path);
    return fs(p).open(p);
  }

  @Override
  public OutputStream create(String path, boolean overwrite) throws IOException {
    Path p = new Path(path);
    return fs(p).create(p, overwrite);
  }

  @Override
  public void mkdirs(String path) throws IOException {
    Path p = new Path(path);
    fs(p).mkdirs(p);
  }

  @Override
  public boolean delete(String path, boolean recursive) throws IOException {
    Path p = new Path(path);
    return fs(p).delete(p, recursive);
  }

  @Override
  public boolean rename(String from, String to) throws IOException {
    Path f = new Path(from);
    return fs(f).rename(f, new Path(to));
  }

  @Override
  public String parent(String path) {
    Path parent = new Path(path).getParent();
    return parent == null ? null : parent.toString();
  }
}
