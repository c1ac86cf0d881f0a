package dev.dptext.mechanism;

import static dev.dptext.mechanism.MechanismDefinition.EPSILON;

import dev.dptext.config.Check;
import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.WordMetric;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.mechanism.MechanismDefinition.Parameter;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * 1-Diffractor (Meisenbacher, Chevli, Matthes, "1-Diffractor: Efficient and Utility-Preserving Text
 * Obfuscation Leveraging Word-Level Metric Differential Privacy", 2024, arXiv 2405.01678; the authors'
 * code github.com/sjmeis/Diffractor): the vocabulary is laid out once on one-dimensional lists, each an
 * ordering of all of V in which consecutive words are near in the embedding space; a word is perturbed by
 * adding noise to its position in a list.
 *
 * <h2>The lists (built on the driver, deterministic)</h2>
 *
 * The paper builds a list by a greedy nearest-neighbour chain: start at some word, then repeatedly
 * append the nearest word not yet on the list (its code: a FAISS IVF index, nlist 100, nprobe 20, so
 * approximate, with random start words; O(|V|²·m) even so). Here list ℓ (ℓ = 0..L−1) is defined exactly:
 * it starts at the word with the ℓ-th largest norm ‖φ(x)‖ (ties: lower rank first — the paper's
 * "outside" start rule, the words farthest from the origin); from the current word c the next word is the
 * first word of c's row in the model's exact neighbour table ({@link DpTextModel#neighbours}(0): c's
 * nearest words sorted by (distance, rank), K = 64 by default, longer rows for frequent words) that is
 * not yet on the list; when every word of that row is already on the list, the next word is the most
 * frequent (lowest-rank) word not yet on it (a "jump"). So the chain follows the true nearest unvisited
 * word whenever that word is among c's K nearest, and the lists are a function of the public embeddings
 * and K alone. Measured on GloVe 6B 100-d with the default rows: 1.0% of the steps are jumps over the
 * top 2,000 words, 5.8% over the top 30,000 (there, list-adjacent words are 4.37 apart on average,
 * against 3.77 from a word to its nearest word). Cost: O(Σ row lengths + |V|) per list given the table
 * (0.04 s at 30,000 words); the table itself is the
 * all-pairs search SanText uses (2·|V|²·m flops, computed once and stored in the model artifact:
 * about 36 s per 100,000 GloVe 100-d words on one core, so about 10 minutes for 400,000).
 * dptext has one embedding per model where the paper used five (one list each); L &gt; 1 lists here
 * come from the same embedding with different start words.
 *
 * <h2>Output distribution (exact, as implemented)</h2>
 *
 * n = |V|; π_ℓ(x) ∈ {0..n−1} is x's position on list ℓ, σ_ℓ its inverse. A list ℓ is chosen uniformly
 * (probability 1/L), p = π_ℓ(x), and the output is σ_ℓ(J) with J drawn by one of two noise kinds
 * ({@code listNoise}):
 *
 * <ul>
 *   <li><b>geometric</b> (the paper's default; diffprivlib's GeometricTruncated): J = clamp(p + Z, 0,
 *       n−1), Z two-sided geometric, P(Z = k) = (1−a)/(1+a)·a^|k|, a = e^−ε. Hence, for n ≥ 2,
 *       P(J = j) = (1−a)/(1+a)·a^|j−p| for 0 &lt; j &lt; n−1, P(J = 0) = a^p/(1+a), P(J = n−1) =
 *       a^(n−1−p)/(1+a). The ends are clamped, as in the paper's code: the end words collect the tail.
 *   <li><b>tem</b> (the truncated exponential mechanism of Carvalho et al., as the paper's code runs it
 *       with sensitivity 1 and window radius r = {@code listRadius}): P(J = j) = b^min(|j−p|, r) / Z_p,
 *       b = e^(−ε/2), Z_p = Σ_{j'=0}^{n−1} b^min(|j'−p|, r). (The code's Gumbel-max over the window
 *       |j−p| ≤ r plus one "⊥" candidate of score −r + 2·ln(#outside)/ε, ⊥ then uniform outside the
 *       window, is exactly this distribution.) The list's ends simply shorten the window.
 * </ul>
 *
 * P(y | x) = (1/L)·Σ_ℓ P(J = π_ℓ(y) | p = π_ℓ(x)). As in the paper's code, where every list proposes a
 * candidate and one of the L candidates is picked uniformly; drawing the list first gives the same
 * distribution with one list's work. The output may be x itself. Sampling is exact (closed-form inverse
 * CDFs, {@link RandomStream#nextLogUniform} for the geometric tail) and O(1) per token whatever ε, n or r:
 * at most one nextInt, two uniforms and one log.
 *
 * <h2>Guarantee</h2>
 *
 * Let d_ℓ(x, x') = |π_ℓ(x) − π_ℓ(x')| and d_L = max_ℓ d_ℓ (a metric on V; d_L = d_V of the paper when
 * L = 1). For all x, x', y:
 *
 * <ul>
 *   <li>geometric: P(y | x) ≤ exp(ε·d_L(x, x'))·P(y | x'). Proof: p + Z is ε·|p − p'|-private over the
 *       integers (the ratio of a^|j−p| to a^|j−p'| is at most a^−|p−p'|); clamping is post-processing
 *       (each output's probability is a sum over its preimage, term by term within the bound).
 *   <li>tem: P(y | x) ≤ exp(ε·min(d_L(x, x'), r))·P(y | x'), so also pure ε·r local DP. Proof: with
 *       t(x, y) = min(d_ℓ(x, y), r), a metric, the weight ratio b^t(x,y)/b^t(x',y) and the normaliser
 *       ratio Z(x')/Z(x) are each at most e^(ε/2·min(d_ℓ(x,x'), r)).
 *   <li>L lists: each list's mechanism is private for its own d_ℓ; a uniform mixture of them satisfies
 *       Σ_ℓ P_ℓ(y|x) ≤ Σ_ℓ e^(ε·d_ℓ)·P_ℓ(y|x') ≤ e^(ε·max_ℓ d_ℓ)·Σ_ℓ P_ℓ(y|x'): ε·d_L with the max over
 *       lists, not the distance in any one list. Every list gets the whole ε (as in the paper: no split,
 *       no composition — one output is released, not L).
 * </ul>
 *
 * The {@link MechanismDefinition#metric metric} is d_L (tem: min(d_L, r)). <b>What it does not mean:</b>
 * d_L says nothing directly about embedding distance. Two words adjacent on a list may be far apart in
 * the embedding (every jump of the chain, and the chain's drift), and two embedding neighbours may be
 * far apart on every list (x's nearest word is often placed long before or after x: over the top 30,000
 * GloVe words the list distance from a word to its nearest word has median 1 but 75th percentile 5,353
 * and 90th 15,639), so such a pair is
 * protected only by ε·d_L, which can be large (geometric: up to ε·(n−1)). <b>Not covered:</b> token
 * count and layout, verbatim opt-ins; the lists are public (a function of the public embeddings).
 *
 * <p><b>Deviations from the paper's code.</b> Exact, deterministic list construction (above) instead
 * of an approximate index and random start words; one embedding (L lists from it) instead of five
 * models; stop words and punctuation are not exempted (dptext's tokenizer decides what is a word, and
 * every vocabulary word is perturbed); TEM's optional "gaussian" scoring is not offered.
 */
public final class Diffractor implements WordMechanism, ExactConditional {
  private static final long serialVersionUID = 1L;

  /** The noise added to a word's list position. */
  public enum Noise {
    /** Two-sided geometric, clamped at the list's ends. */
    GEOMETRIC,
    /** Truncated exponential mechanism with window radius r. */
    TEM;

    static Noise parse(String text) {
      String t = text.strip().toLowerCase(Locale.ROOT);
      switch (t) {
        case "geometric", "geo" -> {
          return GEOMETRIC;
        }
        case "tem", "truncated-exponential" -> {
          return TEM;
        }
        default -> throw new IllegalArgumentException(text);
      }
    }
  }

  /** The noise kind on the list positions. */
  public static final Setting<String> NOISE = Setting.define("listNoise").symbol("noise")
      .doc("1-Diffractor: the noise added to a word's list position: geometric (two-sided geometric, "
          + "P(k) ∝ e^(−ε|k|), clamped at the list's ends; the paper's default) or tem (truncated exponential "
          + "mechanism, P ∝ e^(−ε·min(|k|, r)/2) over the whole list).")
      .createWithDefault(ValueType.choice(Noise.class, Noise::parse), Check.any(), "geometric");

  /** r: the TEM window radius in list positions. */
  public static final Setting<Integer> RADIUS = Setting.define("listRadius").symbol("r")
      .doc("1-Diffractor with listNoise=tem: the window radius r, in list positions. Positions farther than r "
          + "all weigh e^(−ε·r/2), so the guarantee is ε·min(d_list, r): also pure ε·r local DP. Ignored by "
          + "listNoise=geometric.")
      .hint("the paper's code uses 5")
      .createWithDefault(ValueType.INT, Check.between(1, 1 << 30), 5);

  /** L: how many lists. */
  public static final Setting<Integer> LISTS = Setting.define("lists").symbol("L")
      .doc("1-Diffractor: the number L of lists, built from the one embedding with different start words; "
          + "each token uses one list chosen uniformly. The guarantee is in the largest of the L position "
          + "distances, so more lists never strengthen it.")
      .hint("the paper used one list per embedding model")
      .createWithDefault(ValueType.INT, Check.between(1, 64), 1);

  /** 1-Diffractor: ε, noise kind, r, L. */
  public static final MechanismDefinition DEFINITION = new MechanismDefinition("1-diffractor", List.of("diffractor"),
      "1-Diffractor (Meisenbacher et al. 2024): the vocabulary laid out on L lists by a greedy nearest-neighbour "
          + "chain over the embedding; a word moves to a list position drawn with geometric or truncated "
          + "exponential noise around its own, on a list chosen uniformly. O(1) per token.",
      List.of(Parameter.of(EPSILON), Parameter.of(NOISE), Parameter.of(RADIUS), Parameter.of(LISTS))) {
    @Override
    public String example() {
      return "1-diffractor:epsilon=2,listNoise=tem,listRadius=7,lists=3";
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      return new Diffractor(lists(spec, model), spec.epsilon(), Noise.parse(spec.get(NOISE)), spec.get(RADIUS));
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      int[][] lists = lists(spec, model);
      boolean tem = Noise.parse(spec.get(NOISE)) == Noise.TEM;
      return new ListDistance(lists.length + (lists.length == 1 ? " list" : " lists"), positions(lists),
          tem ? spec.get(RADIUS) : Integer.MAX_VALUE);
    }

    /** Each list starts at a distinct word: L must not exceed the vocabulary, a usage error before the build. */
    @Override
    protected void validate(MechanismSpec spec, DpTextModel model) {
      int count = spec.get(LISTS);
      int n = model.embeddings().size();
      if (count > n) {
        throw exceedsModel(LISTS.name(), count, "vocabulary size", n);
      }
    }

    private int[][] lists(MechanismSpec spec, DpTextModel model) {
      return buildLists(model.embeddings(), model.neighbours(0), spec.get(LISTS));
    }

    @Override
    protected String approximateSearchObstacle() {
      return "moves words along lists built from the exact neighbour table and searches no noisy vector; an "
          + "approximate index does not apply to it";
    }

    @Override
    protected String guarantee(Rendering r) {
      boolean tem = !r.isSymbolic() && Noise.parse(r.value(NOISE)) == Noise.TEM;
      String eps = r.text(EPSILON);
      String bound = r.isSymbolic()
          ? eps + "·d_list (listNoise=tem: " + eps + "·min(d_list, " + r.text(RADIUS) + "), hence also "
              + eps + "·" + r.text(RADIUS) + " local DP)"
          : tem ? eps + "·min(d_list, " + r.text(RADIUS) + "), hence also " + eps + "·" + r.text(RADIUS)
              + " local DP" : eps + "·d_list";
      return "1-Diffractor: " + bound + " metric local DP per token, d_list(x,x') = the largest of |position(x) − "
          + "position(x')| over the " + r.text(LISTS) + " list(s); no bound in embedding distance (embedding "
          + "neighbours can be far apart on a list)";
    }
  };

  private final int[][] order;
  private final int[][] position;
  private final double epsilon;
  private final Noise noise;
  private final int radius;
  /** Geometric: P(Z = 0) = (1 − e^−ε)/(1 + e^−ε) = tanh(ε/2). */
  private final double zeroProbability;
  /** TEM: log b = −ε/2. */
  private final double logB;

  /**
   * @param lists the lists, each a permutation of the vocabulary ranks (position → word)
   * @param epsilon ε &gt; 0
   * @param noise the noise kind
   * @param radius TEM's window radius r ≥ 1 (ignored by geometric)
   */
  public Diffractor(int[][] lists, double epsilon, Noise noise, int radius) {
    if (!(epsilon > 0) || Double.isInfinite(epsilon)) {
      throw Check.failure(EPSILON.name(), "a positive finite number", epsilon, null);
    }
    if (radius < 1) {
      throw Check.failure(RADIUS.name(), "a positive integer", radius, null);
    }
    if (lists.length == 0) {
      throw Check.failure(LISTS.name(), "at least 1", 0, null);
    }
    this.order = lists;
    this.position = positions(lists);
    this.epsilon = epsilon;
    this.noise = noise;
    this.radius = radius;
    this.zeroProbability = StrictMath.tanh(epsilon / 2);
    this.logB = -epsilon / 2;
  }

  /**
   * The L lists over {@code embeddings}: list ℓ starts at the word of ℓ-th largest norm (ties: lower rank)
   * and follows the greedy chain over {@code table} described in the class comment.
   *
   * @param table an exact neighbour table over the whole vocabulary (target start 0)
   */
  public static int[][] buildLists(Embeddings embeddings, NeighbourTable table, int count) {
    int n = embeddings.size();
    if (table.targetStart() != 0 || table.size() != n) { // the definition passes the model's table for rank 0
      throw new IllegalStateException("1-Diffractor needs a neighbour table over the whole vocabulary");
    }
    if (count > n) { // the definition's validate refuses L > |V| first (each list starts at a distinct word)
      throw new IllegalStateException(count + " lists over " + n + " words");
    }
    int[] starts = largestNorms(embeddings, Math.min(count, n));
    int[][] lists = new int[count][];
    for (int l = 0; l < count; l++) {
      lists[l] = chain(table, n, starts[l]);
    }
    return lists;
  }

  /** The greedy chain from {@code start}: nearest unvisited word in the row, else lowest unvisited rank. */
  static int[] chain(NeighbourTable table, int n, int start) {
    int[] list = new int[n];
    boolean[] visited = new boolean[n];
    int lowestUnvisited = 0;
    int current = start;
    for (int step = 0; ; step++) {
      list[step] = current;
      visited[current] = true;
      if (step == n - 1) {
        return list;
      }
      int next = -1;
      int length = table.rowLength(current);
      for (int j = 0; j < length; j++) {
        int y = table.neighbour(current, j);
        if (!visited[y]) {
          next = y;
          break;
        }
      }
      if (next < 0) {
        while (visited[lowestUnvisited]) {
          lowestUnvisited++;
        }
        next = lowestUnvisited;
      }
      current = next;
    }
  }

  /** The {@code count} ranks of largest ‖φ(x)‖, largest first, ties to the lower rank. */
  private static int[] largestNorms(Embeddings e, int count) {
    int n = e.size();
    int m = e.dim();
    float[] v = e.rawVectors();
    double[] norm2 = new double[n];
    Integer[] idx = new Integer[n];
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int a = 0; a < m; a++) {
        double c = v[i * m + a];
        s += c * c;
      }
      norm2[i] = s;
      idx[i] = i;
    }
    Arrays.sort(idx, (a, b) -> norm2[a] != norm2[b] ? Double.compare(norm2[b], norm2[a]) : Integer.compare(a, b));
    int[] out = new int[count];
    for (int i = 0; i < count; i++) {
      out[i] = idx[i];
    }
    return out;
  }

  private static int[][] positions(int[][] lists) {
    int[][] pos = new int[lists.length][];
    for (int l = 0; l < lists.length; l++) {
      int n = lists[l].length;
      pos[l] = new int[n];
      Arrays.fill(pos[l], -1);
      for (int i = 0; i < n; i++) {
        int w = lists[l][i];
        if (w < 0 || w >= n || pos[l][w] >= 0) {
          throw new IllegalStateException("list " + l + " is not a permutation of the vocabulary: rank " + w
              + " at position " + i);
        }
        pos[l][w] = i;
      }
      if (n != lists[0].length) {
        throw new IllegalStateException("lists of different lengths: " + n + " and " + lists[0].length);
      }
    }
    return pos;
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    int l = order.length == 1 ? 0 : random.nextInt(order.length);
    int p = position[l][word];
    int j = noise == Noise.GEOMETRIC ? geometric(p, random) : tem(p, random);
    return order[l][j];
  }

  /** clamp(p + Z, 0, n−1), Z two-sided geometric with P(Z = k) ∝ e^(−ε|k|). */
  private int geometric(int p, RandomStream random) {
    int n = order[0].length;
    if (n == 1 || random.nextUniform() < zeroProbability) {
      return p;
    }
    boolean up = random.nextLong() < 0;
    // |Z| given Z ≠ 0: P(|Z| ≥ k) = e^(−ε(k−1)) for k ≥ 1, i.e. 1 + floor(−ln U / ε).
    double k = 1 + Math.floor(random.nextLogUniform() / -epsilon);
    if (up) {
      return k >= n - 1 - p ? n - 1 : p + (int) k;
    }
    return k >= p ? 0 : p - (int) k;
  }

  /** J with P(J = j) ∝ b^min(|j−p|, r), b = e^(−ε/2), over 0..n−1. */
  private int tem(int p, RandomStream random) {
    int n = order[0].length;
    int left = Math.min(radius, p);
    int right = Math.min(radius, n - 1 - p);
    long outside = (long) n - 1 - left - right;
    double wLeft = sideWeight(left);
    double wRight = sideWeight(right);
    double wOutside = outside * StrictMath.exp(radius * logB);
    double v = random.nextUniform() * (1 + wLeft + wRight + wOutside);
    if (v < 1) {
      return p;
    }
    v -= 1;
    if (v < wLeft || (outside == 0 && right == 0)) {
      return left == 0 ? p : p - truncatedGeometric(left, random);
    }
    v -= wLeft;
    if (v < wRight || outside == 0) {
      return right == 0 ? p : p + truncatedGeometric(right, random);
    }
    int k = random.nextInt((int) outside);
    int below = p - left;
    return k < below ? k : p + right + 1 + (k - below);
  }

  /** Σ_{k=1}^{m} b^k = b·(1 − b^m)/(1 − b). */
  private double sideWeight(int m) {
    if (m == 0) {
      return 0;
    }
    return StrictMath.exp(logB) * (StrictMath.expm1(m * logB) / StrictMath.expm1(logB));
  }

  /** k ∈ {1..m} with P(k) ∝ b^k, by inversion of F(k) = (1 − b^k)/(1 − b^m). */
  private int truncatedGeometric(int m, RandomStream random) {
    double u = random.nextUniform();
    double k = 1 + Math.floor(StrictMath.log1p(u * StrictMath.expm1(m * logB)) / logB);
    return (int) Math.max(1, Math.min(m, k));
  }

  @Override
  public double[] conditional(int word) {
    int n = order[0].length;
    double[] f = new double[n];
    double share = 1.0 / order.length;
    for (int l = 0; l < order.length; l++) {
      int p = position[l][word];
      for (int j = 0; j < n; j++) {
        f[order[l][j]] += share * positionProbability(p, j, n);
      }
    }
    return f;
  }

  /** P(J = j | p) in closed form. */
  private double positionProbability(int p, int j, int n) {
    if (n == 1) {
      return 1;
    }
    if (noise == Noise.GEOMETRIC) {
      double a = Math.exp(-epsilon);
      if (j == 0 || j == n - 1) {
        return Math.exp(-epsilon * Math.abs(j - p)) / (1 + a);
      }
      return zeroProbability * Math.exp(-epsilon * Math.abs(j - p));
    }
    int left = Math.min(radius, p);
    int right = Math.min(radius, n - 1 - p);
    double z = 1 + sideWeight(left) + sideWeight(right) + ((long) n - 1 - left - right) * Math.exp(radius * logB);
    return Math.exp(Math.min(Math.abs(j - p), radius) * logB) / z;
  }

  /** The lists (position → rank); callers must not modify them. */
  public int[][] lists() {
    return order;
  }

  public double epsilon() {
    return epsilon;
  }

  public Noise noise() {
    return noise;
  }

  @Override
  public int outputStart() {
    return 0;
  }

  @Override
  public String name() {
    return "1-diffractor";
  }

  /**
   * The guarantee's metric: the largest position distance over the lists, capped at {@code cap} (TEM's
   * r; {@link Integer#MAX_VALUE} for none).
   */
  record ListDistance(String lists, int[][] positions, int cap) implements WordMetric {
    @Override
    public String name() {
      return "list position distance (" + lists + (cap == Integer.MAX_VALUE ? "" : ", capped at r=" + cap) + ")";
    }

    @Override
    public int size() {
      return positions[0].length;
    }

    @Override
    public double distance(int i, int j) {
      int d = 0;
      for (int[] pos : positions) {
        d = Math.max(d, Math.abs(pos[i] - pos[j]));
      }
      return Math.min(d, cap);
    }

    @Override
    public double maximumUpperBound() {
      return Math.min(size() - 1, cap);
    }
  }
}
