import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The JVM side of the Python engine's tests: answers batches of questions with dptext's own classes
 * (RandomStream, RowSeeder, SecretKey, Sanitizer.idBytes) and StrictMath, so the tests compare the engine
 * with the real thing. Run as a single-file program: {@code java -cp <dptext jar>[:<spark jars>/*] Oracle.java}.
 *
 * <p>Protocol, on stdin: requests, each a header line {@code @ <command> <count> [args...]} followed by
 * {@code count} lines; the answer, on stdout, is {@code @ <count>} followed by that many lines. Doubles travel
 * as the 16 hex digits of their bits, bytes as hex ("-" for none). Commands:
 *
 * <ul>
 *   <li>{@code version}: java.version, and whether Spark's type converters are on the class path.
 *   <li>{@code fdlibm <exp|log|log1p|expm1|tanh|sin|cos>}: each line a double; answers StrictMath's result.
 *   <li>{@code brr-codes <model path> <bits>}: each line a word rank; answers the hex of its code's longs
 *       (BinaryCodes of the model's embeddings at the default seed), the first line prefixed with the hex
 *       bits of BrrMechanism's flip probability at ε given as a fourth header argument (hex bits).
 *   <li>{@code brr <model path> <bits> <ε hex bits> <key hex> <purpose hex>}: each line an id (hex) and word
 *       ranks; answers {@code outputs... | state} of BrrMechanism.sanitize on the row's stream
 *       (RowSeeder(key, purpose).streamFor(id)), all the row's words in one call as TextSanitizer makes it.
 *   <li>{@code stream-seed <draws>:<ops>}: each line a seed and the bounds its R ops use; answers
 *       {@code draws... | state} of RandomStream.fromSeed(seed).
 *   <li>{@code stream-state <draws>:<ops>}: each line four hex words and bounds; RandomStream.resume(words).
 *   <li>{@code stream-key <key hex> <purpose hex> <draws>:<ops>}: each line an id (hex) and bounds;
 *       answers {@code seed-state ; draws... | state} of new RowSeeder(key, purpose).streamFor(id).
 *   <li>{@code key-file}: each line a path; answers {@code ok <fingerprint>} or {@code err <message>}.
 *   <li>{@code key-text <source hex>}: each line a key text in hex ("-" for null); SecretKey.parse.
 *   <li>{@code key-env}: each line a variable name; SecretKey.fromEnv.
 *   <li>{@code id-bytes <spark DDL type>}: each line a value (see {@link #catalystValue}); answers the hex of
 *       Sanitizer.idBytes of the Java object Spark's CatalystTypeConverters give a UDF for that value.
 * </ul>
 *
 * Ops: L nextLong (hex), D nextDouble (hex bits), I&lt;n&gt; nextInt(n), R nextInt(next bound of the line),
 * U nextUniform (hex bits), G nextLogUniform (hex bits), applied cyclically for {@code draws} draws.
 */
public class Oracle {
  private static final HexFormat HEX = HexFormat.of();

  public static void main(String[] args) throws Exception {
    boolean spark = !(args.length > 0 && args[0].equals("--no-spark")) && sparkAvailable();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20);
    BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 20);
    String header;
    while ((header = in.readLine()) != null) {
      if (header.isEmpty()) {
        continue;
      }
      String[] h = header.split(" ");
      String command = h[1];
      int count = Integer.parseInt(h[2]);
      List<String> lines = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        lines.add(in.readLine());
      }
      List<String> answer = new ArrayList<>(count);
      switch (command) {
        case "version" -> answer.add(System.getProperty("java.version") + " spark=" + spark);
        case "fdlibm" -> fdlibm(h[3], lines, answer);
        case "stream-seed", "stream-state", "stream-key" -> streams(command, h, lines, answer);
        case "key-file" -> {
          for (String line : lines) {
            answer.add(keyAnswer(() -> dev.dptext.random.SecretKey.fromFile(Path.of(line))));
          }
        }
        case "key-text" -> {
          String source = new String(HEX.parseHex(h[3]), StandardCharsets.UTF_8);
          for (String line : lines) {
            String text = line.equals("-") ? null : new String(HEX.parseHex(line), StandardCharsets.UTF_8);
            answer.add(keyAnswer(() -> dev.dptext.random.SecretKey.parse(text, source)));
          }
        }
        case "key-env" -> {
          for (String line : lines) {
            answer.add(keyAnswer(() -> dev.dptext.random.SecretKey.fromEnv(line)));
          }
        }
        case "id-bytes" -> idBytes(h[3], lines, answer, spark);
        case "brr-codes", "brr" -> brr(command, h, lines, answer);
        default -> throw new IllegalArgumentException("unknown command " + command);
      }
      out.write("@ " + answer.size() + "\n");
      for (String a : answer) {
        out.write(a);
        out.write('\n');
      }
      out.flush();
    }
  }

  // ------------------------------------------------------------------------------------------- fdlibm

  private static void fdlibm(String function, List<String> lines, List<String> answer) {
    for (String line : lines) {
      double x = Double.longBitsToDouble(Long.parseUnsignedLong(line, 16));
      double y = switch (function) {
        case "exp" -> StrictMath.exp(x);
        case "log" -> StrictMath.log(x);
        case "log1p" -> StrictMath.log1p(x);
        case "expm1" -> StrictMath.expm1(x);
        case "tanh" -> StrictMath.tanh(x);
        case "sin" -> StrictMath.sin(x);
        case "cos" -> StrictMath.cos(x);
        default -> throw new IllegalArgumentException(function);
      };
      answer.add(hex(Double.doubleToRawLongBits(y)));
    }
  }

  private static String hex(long bits) {
    return HEX.toHexDigits(bits);
  }

  // ------------------------------------------------------------------------------------------ streams

  private static void streams(String command, String[] h, List<String> lines, List<String> answer) {
    String spec = h[h.length - 1];
    int draws = Integer.parseInt(spec.substring(0, spec.indexOf(':')));
    String[] ops = spec.substring(spec.indexOf(':') + 1).split(",");
    dev.dptext.random.RowSeeder seeder = null;
    if (command.equals("stream-key")) {
      dev.dptext.random.SecretKey key = dev.dptext.random.SecretKey.parse(h[3], "oracle test key");
      String purpose = h[4].equals("-") ? "" : new String(HEX.parseHex(h[4]), StandardCharsets.UTF_8);
      seeder = new dev.dptext.random.RowSeeder(key, purpose);
    }
    for (String line : lines) {
      String[] f = line.split(" ");
      int next = 1;
      dev.dptext.random.RandomStream r;
      StringBuilder s = new StringBuilder();
      switch (command) {
        case "stream-seed" -> r = dev.dptext.random.RandomStream.fromSeed(Long.parseLong(f[0]));
        case "stream-state" -> {
          r = dev.dptext.random.RandomStream.resume(new long[] {
              Long.parseUnsignedLong(f[0], 16), Long.parseUnsignedLong(f[1], 16),
              Long.parseUnsignedLong(f[2], 16), Long.parseUnsignedLong(f[3], 16)});
          next = 4;
        }
        default -> {
          r = seeder.streamFor(f[0].equals("-") ? new byte[0] : HEX.parseHex(f[0]));
          for (long w : r.state()) {
            s.append(hex(w)).append(' ');
          }
          s.append("; ");
        }
      }
      for (int d = 0; d < draws; d++) {
        String op = ops[d % ops.length];
        switch (op.charAt(0)) {
          case 'L' -> s.append(hex(r.nextLong()));
          case 'D' -> s.append(hex(Double.doubleToRawLongBits(r.nextDouble())));
          case 'I' -> s.append(r.nextInt(Integer.parseInt(op.substring(1))));
          case 'R' -> s.append(r.nextInt(Integer.parseInt(f[next++])));
          case 'U' -> s.append(hex(Double.doubleToRawLongBits(r.nextUniform())));
          case 'G' -> s.append(hex(Double.doubleToRawLongBits(r.nextLogUniform())));
          default -> throw new IllegalArgumentException(op);
        }
        s.append(' ');
      }
      s.append('|');
      for (long w : r.state()) {
        s.append(' ').append(hex(w));
      }
      answer.add(s.toString());
    }
  }

  // ---------------------------------------------------------------------------------------------- brr

  private static final java.util.Map<String, dev.dptext.model.DpTextModel> MODELS = new java.util.HashMap<>();

  private static dev.dptext.model.DpTextModel model(String path) throws java.io.IOException {
    dev.dptext.model.DpTextModel m = MODELS.get(path);
    if (m == null) {
      try (java.io.InputStream in = new java.io.BufferedInputStream(java.nio.file.Files.newInputStream(Path.of(path)))) {
        m = dev.dptext.model.ModelArtifact.read(in, path);
      }
      MODELS.put(path, m);
    }
    return m;
  }

  private static void brr(String command, String[] h, List<String> lines, List<String> answer) throws Exception {
    dev.dptext.embedding.BinaryCodes codes = model(h[3]).binaryCodes(Integer.parseInt(h[4]));
    double eps = Double.longBitsToDouble(Long.parseUnsignedLong(h[5], 16));
    dev.dptext.mechanism.BrrMechanism brr = new dev.dptext.mechanism.BrrMechanism(codes, eps);
    if (command.equals("brr-codes")) {
      boolean first = true;
      for (String line : lines) {
        StringBuilder s = new StringBuilder();
        if (first) {
          s.append(hex(Double.doubleToRawLongBits(brr.flipProbability()))).append(" : ");
          first = false;
        }
        int y = Integer.parseInt(line.trim());
        for (int k = 0; k < codes.longs(); k++) {
          s.append(hex(codes.code(y, k))).append(' ');
        }
        answer.add(s.toString().trim());
      }
      return;
    }
    dev.dptext.random.SecretKey key = dev.dptext.random.SecretKey.parse(h[6], "oracle test key");
    String purpose = h[7].equals("-") ? "" : new String(HEX.parseHex(h[7]), StandardCharsets.UTF_8);
    dev.dptext.random.RowSeeder seeder = new dev.dptext.random.RowSeeder(key, purpose);
    for (String line : lines) {
      String[] f = line.trim().split(" ");
      dev.dptext.random.RandomStream r = seeder.streamFor(f[0].equals("-") ? new byte[0] : HEX.parseHex(f[0]));
      int[] words = new int[f.length - 1];
      for (int i = 1; i < f.length; i++) {
        words[i - 1] = Integer.parseInt(f[i]);
      }
      int[] out = new int[words.length];
      brr.sanitize(words, words.length, r, out);
      StringBuilder s = new StringBuilder();
      for (int o : out) {
        s.append(o).append(' ');
      }
      s.append('|');
      for (long w : r.state()) {
        s.append(' ').append(hex(w));
      }
      answer.add(s.toString());
    }
  }

  // --------------------------------------------------------------------------------------------- keys

  private interface KeySupplier {
    dev.dptext.random.SecretKey get();
  }

  private static String keyAnswer(KeySupplier supplier) {
    try {
      return "ok " + supplier.get().fingerprint();
    } catch (IllegalArgumentException e) {
      return "err " + e.getMessage().replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
    }
  }

  // ------------------------------------------------------------------------------------------ id bytes

  private static boolean sparkAvailable() {
    try {
      Class.forName("org.apache.spark.sql.catalyst.CatalystTypeConverters");
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static Object module(String name) throws Exception {
    return Class.forName(name + "$").getField("MODULE$").get(null);
  }

  private static Method method(Object target, String name, int arity) {
    for (Method m : target.getClass().getMethods()) {
      if (m.getName().equals(name) && m.getParameterCount() == arity) {
        return m;
      }
    }
    throw new IllegalArgumentException("no method " + name + "/" + arity + " on " + target.getClass());
  }

  private static void idBytes(String type, List<String> lines, List<String> answer, boolean spark) throws Exception {
    Method idBytes = Class.forName("dev.dptext.sanitizer.Sanitizer").getDeclaredMethod("idBytes", Object.class);
    idBytes.setAccessible(true);
    Object converter = null;
    Method apply = null;
    Object dataType = null;
    if (spark) {
      Object dataTypes = module("org.apache.spark.sql.types.DataType");
      dataType = method(dataTypes, "fromDDL", 1).invoke(dataTypes, type);
      Object converters = module("org.apache.spark.sql.catalyst.CatalystTypeConverters");
      converter = method(converters, "createToScalaConverter", 1).invoke(converters, dataType);
      apply = Class.forName("scala.Function1").getMethod("apply", Object.class);
    }
    for (String line : lines) {
      Object value = spark ? apply.invoke(converter, catalystValue(type, line)) : javaValue(type, line);
      byte[] b = (byte[]) idBytes.invoke(null, value);
      answer.add(b.length == 0 ? "-" : HEX.formatHex(b));
    }
  }

  /**
   * A value in Spark's internal (Catalyst) form: integral types from decimal digits, decimal(p,s) from its
   * plain text, double/float from their bits in hex, string and binary from hex bytes, boolean as text, date
   * as days since the epoch.
   */
  private static Object catalystValue(String type, String line) throws Exception {
    String t = type.toLowerCase(java.util.Locale.ROOT);
    if (t.startsWith("decimal")) {
      String[] ps = t.substring(t.indexOf('(') + 1, t.indexOf(')')).split(",");
      Object decimals = module("org.apache.spark.sql.types.Decimal");
      for (Method m : decimals.getClass().getMethods()) {
        if (m.getName().equals("apply") && m.getParameterCount() == 3
            && m.getParameterTypes()[0] == java.math.BigDecimal.class) {
          return m.invoke(decimals, new java.math.BigDecimal(line), Integer.parseInt(ps[0].trim()),
              Integer.parseInt(ps[1].trim()));
        }
      }
      throw new IllegalStateException("no Decimal.apply(BigDecimal, int, int)");
    }
    if (t.equals("string")) {
      return Class.forName("org.apache.spark.unsafe.types.UTF8String").getMethod("fromBytes", byte[].class)
          .invoke(null, (Object) bytes(line));
    }
    return javaValue(type, line);
  }

  /** The Java object itself (what the converters give for every type but decimal and string). */
  private static Object javaValue(String type, String line) {
    String t = type.toLowerCase(java.util.Locale.ROOT);
    if (t.startsWith("decimal")) {
      int scale = Integer.parseInt(t.substring(t.indexOf(',') + 1, t.indexOf(')')).trim());
      return new java.math.BigDecimal(line).setScale(scale);
    }
    return switch (t) {
      case "bigint" -> Long.valueOf(line);
      case "int" -> Integer.valueOf(line);
      case "smallint" -> Short.valueOf(line);
      case "tinyint" -> Byte.valueOf(line);
      case "double" -> Double.longBitsToDouble(Long.parseUnsignedLong(line, 16));
      case "float" -> Float.intBitsToFloat(Integer.parseUnsignedInt(line, 16));
      case "string" -> new String(bytes(line), StandardCharsets.UTF_8);
      case "binary" -> bytes(line);
      case "boolean" -> Boolean.valueOf(line);
      case "date" -> Integer.valueOf(line); // days: only the Spark path turns these into dates
      default -> throw new IllegalArgumentException("unsupported type " + type);
    };
  }

  private static byte[] bytes(String hex) {
    return hex.equals("-") ? new byte[0] : HEX.parseHex(hex);
  }
}
