package dev.dptext.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The local file system through {@code java.nio}: what a Spark Connect client without Hadoop reaches (local
 * paths, Databricks volumes mounted at {@code /Volumes}). Its forms of a path are the local Hadoop file
 * system's ({@code file:/abs/path}), so that both name a place alike; {@link #realLocal} is also what the
 * Hadoop storage uses for local paths.
 */
public final class LocalStorage implements Storage {
  public static final LocalStorage INSTANCE = new LocalStorage();

  /** How many symbolic links {@link #realLocal} follows before it gives up (a loop, as the OS's ELOOP). */
  private static final int MAX_LINKS = 40;

  private LocalStorage() {}

  /** Whether {@code path} names a local file: no scheme, or {@code file:}. */
  public static boolean isLocal(String path) {
    int colon = path.indexOf(':');
    int slash = path.indexOf('/');
    boolean scheme = colon > 0 && (slash < 0 || colon < slash)
        && path.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*");
    return !scheme || path.regionMatches(true, 0, "file:", 0, 5);
  }

  /** The absolute, normalized local path of {@code path}: {@code file:} stripped, relative to the working directory. */
  static Path local(String path) {
    String p = path;
    if (p.regionMatches(true, 0, "file:", 0, 5)) {
      p = URI.create(p.replace(" ", "%20")).getPath();
    }
    return Path.of(p).toAbsolutePath().normalize();
  }

  static String form(Path p) {
    String s = p.toString();
    return "file:" + (s.length() > 1 && s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
  }

  @Override
  public String qualified(String path) {
    return form(local(path));
  }

  @Override
  public String resolved(String path) throws IOException {
    return form(realLocal(local(path), 0));
  }

  /** {@code abs} (absolute, normalized) with every link resolved; absent trailing components kept. */
  public static Path realLocal(Path abs, int linksFollowed) throws IOException {
    Path existing = abs;
    Deque<Path> tail = new ArrayDeque<>();
    while (existing.getParent() != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      tail.push(existing.getFileName());
      existing = existing.getParent();
    }
    Path real;
    if (Files.isSymbolicLink(existing) && !Files.exists(existing)) {
      // A dangling link: a write through it creates its target, so the target is the place.
      if (linksFollowed >= MAX_LINKS) {
        throw new java.nio.file.FileSystemLoopException(existing.toString()); // the JDK's ELOOP, as toRealPath
      }
      Path target = existing.getParent().toRealPath().resolve(Files.readSymbolicLink(existing)).normalize();
      real = realLocal(target, linksFollowed + 1);
    } else {
      real = existing.toRealPath();
    }
    for (Path name : tail) {
      real = real.resolve(name);
    }
    return real.normalize();
  }

  @Override
  public Optional<Entry> status(String path) throws IOException {
    Path p = local(path);
    try {
      return Optional.of(entry(p, Files.readAttributes(p, BasicFileAttributes.class)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  private static Entry entry(Path p, BasicFileAttributes a) {
    return new Entry(form(p), p.getFileName() == null ? "" : p.getFileName().toString(), a.isDirectory(),
        a.isDirectory() ? 0 : a.size(), a.lastModifiedTime().toMillis());
  }

  @Override
  public List<Entry> list(String dir) throws IOException {
    List<Entry> out = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(local(dir))) {
      for (Path c : children) {
        out.add(entry(c, Files.readAttributes(c, BasicFileAttributes.class)));
      }
    }
    out.sort(Comparator.comparing(Entry::name));
    return out;
  }

  @Override
  public List<Entry> files(String path) throws IOException {
    Path p = local(path);
    List<Entry> out = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(p, java.nio.file.FileVisitOption.FOLLOW_LINKS)) {
      for (Path f : (Iterable<Path>) walk::iterator) {
        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
        if (!a.isDirectory()) {
          out.add(entry(f, a));
        }
      }
    }
    return out;
  }

  @Override
  public List<String> glob(String pattern) throws IOException {
    // The fixed part of the pattern is a directory to walk; the rest is matched component by component.
    Path abs = local(pattern);
    Path base = abs.getRoot();
    int first = 0;
    for (; first < abs.getNameCount(); first++) {
      if (abs.getName(first).toString().matches(".*[*?\\[{].*")) {
        break;
      }
      base = base.resolve(abs.getName(first));
    }
    if (first == abs.getNameCount()) {
      return Files.exists(abs) ? List.of(form(abs)) : List.of();
    }
    java.nio.file.PathMatcher matcher = abs.getFileSystem().getPathMatcher("glob:" + abs);
    int depth = abs.getNameCount() - first;
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(base)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(base, depth)) {
      walk.filter(q -> q.getNameCount() == abs.getNameCount() && matcher.matches(q)).sorted()
          .forEach(q -> out.add(form(q)));
    }
    return out;
  }

  @Override
  public InputStream open(String path) throws IOException {
    return Files.newInputStream(local(path));
  }

  @Override
  public OutputStream create(String path, boolean overwrite) throws IOException {
    Path p = local(path);
    if (p.getParent() != null) {
      Files.createDirectories(p.getParent());
    }
    return overwrite ? Files.newOutputStream(p) : Files.newOutputStream(p, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE);
  }

  @Override
  public void mkdirs(String path) throws IOException {
    Files.createDirectories(local(path));
  }

  @Override
  public boolean delete(String path, boolean recursive) throws IOException {
    Path p = local(path);
    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    if (recursive && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
      try (Stream<Path> walk = Files.walk(p)) {
        for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(q);
        }
      }
      return true;
    }
    Files.delete(p);
    return true;
  }

  @Override
  public boolean rename(String from, String to) throws IOException {
    Path target = local(to);
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      return false; // as Hadoop's rename: never over an existing path
    }
    Files.move(local(from), target, StandardCopyOption.ATOMIC_MOVE);
    return true;
  }

  @Override
  public String parent(String path) {
    Path p = local(path).getParent();
    return p == null ? null : form(p);
  }
}
