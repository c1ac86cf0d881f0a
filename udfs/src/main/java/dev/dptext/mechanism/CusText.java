package dev.dptext.mechanism;

import static dev.dptext.mechanism.MechanismDefinition.EPSILON;

import dev.dptext.config.Check;
import dev.dptext.config.Setting;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.config.ValueType;
import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.WordMetric;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.mechanism.MechanismDefinition.Parameter;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.WeakHashMap;

/**
 * CusText (Chen, Mo, Wang, Chen, Nie, Wang, Cui, "A Customized Text Sanitization Mechanism with
 * Differential Privacy", Findings of ACL 2023; code github.com/sai4july/CusText): every word gets a
 * customized output set, and the output is drawn within that set by the exponential mechanism.
 *
 * <h2>Mapping function: the groups</h2>
 *
 * The vocabulary is cut into disjoint groups, once per model and K, on the driver, deterministically:
 * words are taken in public frequency order (rank 0 first); the first word x not yet in a group leads
 * a new group made of x and the K − 1 words nearest to x (Euclidean distance of the embeddings, ties to
 * the lower rank) among the words not yet in a group. When fewer than 2K words are left, the next
 * group takes all of them (so every group has between K and 2K − 1 words). A word's output set is its
 * own group G(x). This is the reference code's default "conservative" strategy (each group's words
 * are removed from the search before the next group is built).
 *
 * <h2>Sampling function: the exact distribution</h2>
 *
 * For x in a group G with D(x) = max_{z∈G} d(x, z), the normalized score is u(x, y) = 1 − d(x, y)/D(x)
 * ∈ [0, 1] (the reference code's min–max normalization of −d over the set: the minimum distance is
 * d(x, x) = 0), or u ≡ 1 when D(x) = 0 (the group's vectors coincide), and
 *
 * <pre>  P(y | x) = exp(ε·u(x,y)/2) / Σ_{z∈G(x)} exp(ε·u(x,z)/2)   for y ∈ G(x),   0 otherwise.</pre>
 *
 * <h2>Guarantee</h2>
 *
 * ε-DP per token among the words of one group: for x, x' in the same group and any y,
 * P(y | x) ≤ e^ε·P(y | x'). Proof: u takes values in [0, 1], so the score's sensitivity is 1;
 * exp(ε·u(x,y)/2) / exp(ε·u(x',y)/2) ≤ e^{ε/2}, and each term of x's normaliser is at least e^{−ε/2}
 * times the same term of x''s, so Σ_z exp(ε·u(x,z)/2) ≥ e^{−ε/2}·Σ_z exp(ε·u(x',z)/2); together ≤ e^ε.
 * <b>Nothing holds across groups</b>: the output is always in the input's group, so it reveals the
 * group (K semantically close words) with certainty: P(y | x) &gt; 0 = P(y | x') when x' is in
 * another group. The paper's "ε-DP" is in this sense; it is not ε-DP over the vocabulary. The metric
 * the guarantee is stated in ({@link #metric}) says exactly this: d(x, x) = 0, d(x, x') = 1 within a
 * group, +∞ across groups, so that P(y | x) ≤ exp(ε·d(x,x'))·P(y | x') for all x, x', y.
 * <b>Not covered:</b> the token count and layout, verbatim opt-ins (oov=keep, casePolicy=restore, the
 * kept words of CusText+), and which group a word is in.
 *
 * <h2>CusText+</h2>
 *
 * The paper's CusText+ emits stopwords verbatim (the reference code: NLTK's English list) and
 * sanitizes the other words as CusText does; the groups are unchanged (a kept word can still be the
 * output of another word of its group). Here the kept words are an explicit, required list
 * ({@link #VERBATIM}); dptext ships none. A kept word x is emitted as itself with probability 1 and is
 * protected by nothing: its d to every other word is +∞. Among the non-kept words the guarantee is
 * CusText's.
 *
 * <h2>Deviations from the paper and its code, and why</h2>
 *
 * <ul>
 *   <li>Order of the groups: the public frequency rank of the embedding file (the reference code counts
 *       the private training corpus, which makes the groups themselves depend on the private data).
 *       The private-corpus ranking remains the labelled opt-in it is for SanText+.
 *   <li>Similarity: Euclidean distance of the embeddings, as the reference code does for GloVe (for its
 *       counter-fitted vectors it uses the cosine; on unit vectors both order neighbours alike).
 *   <li>The groups cover the whole vocabulary (the code builds them for corpus words only); words
 *       outside the vocabulary follow dptext's out-of-vocabulary policy (the code keeps them verbatim).
 *   <li>The last group takes all of the last &lt; 2K words instead of leaving a group smaller than K
 *       (a group of one word would emit that word verbatim).
 *   <li>Ties are broken by rank, and D(x) = 0 gives the uniform distribution (the code divides by 0).
 * </ul>
 *
 * <h2>Cost</h2>
 *
 * Groups: one pass in rank order over the model's exact neighbour rows (O(row length) per group); a
 * leader whose row runs out of free words, or whose (K−1)-th pick is not strictly nearer than the row's
 * outside bound, is answered by an exact scan of the free words, O(free·m) (the distance sums stop
 * early against the worst kept distance). The scans are bounded by Σ_groups free ≤ |V|²/(2K) distances,
 * a fraction 1/(2K) of the pairs of the all-pairs neighbour table the model already needs, but they are
 * scalar and memory-bound where the table is a matrix product. Measured on GloVe 6B 100-d, K = 20,
 * tiered 64-word rows, 2 shared cores: 50,000 words 2,500 groups, 1,201 scans, 2.0 s (table 21–40 s);
 * 100,000 words 5,000 groups, 3,180 scans, 12.5 s (table 47 s); the scan share grows with |V|, so
 * expect minutes at 400,000 words. Sampling tables: |G|² distances per group, O(|V|·K·m), and 12·|V|·|G| bytes (about 96
 * MB for 400,000 words and K = 20). Per token: one full-precision uniform and a binary search over
 * |G(x)| cumulative probabilities, O(log K): 50–100 ns per token measured (100,000 words, K = 20 and
 * 50, including the text-free batch loop); the tables take 1–2 s to build at 100,000 words.
 *
 * <h2>Numerics</h2>
 *
 * Each word's members are stored in increasing order of probability with their cumulative
 * probabilities (the last exactly 1), and a token draws a full-precision uniform
 * ({@link RandomStream#nextUniform()}): each output's probability is honoured to a relative 2^-52·|G|,
 * small ones included. Weights are exp(−ε·d/(2·D)) relative to the largest (x itself), ≥ e^{−ε/2}: they
 * underflow to 0 only beyond ε ≈ 1,400.
 */
public final class CusText implements WordMechanism, ExactConditional {
  private static final long serialVersionUID = 1L;

  /** K: the size of the output sets. */
  public static final Setting<Integer> GROUP_SIZE = Setting.define("groupSize").symbol("K")
      .doc("custext, custext+: the size K of the output sets. The vocabulary is cut into disjoint groups of K "
          + "mutually close words (the last group takes the last < 2K words); a word is replaced by a word of "
          + "its own group, and the guarantee holds only within a group.")
      .hint("the paper's code uses 20; at least 2 and at most the vocabulary size")
      .createWithDefault(ValueType.INT, Check.atLeast(2), 20);

  /** CusText+: the words emitted verbatim, ';'-separated. */
  public static final Setting<String> VERBATIM = Setting.define("verbatim").symbol("S")
      .doc("custext+: the words emitted verbatim (unprotected), separated by ';', spelled as in the vocabulary, "
          + "e.g. a stopword list (the paper keeps NLTK's English stopwords). Words not in the vocabulary are "
          + "ignored. Required: dptext ships no list.")
      .hint("e.g. verbatim=a;an;the;of;to;and")
      .withoutDefaultMeaning("none: required by custext+")
      .createOptional(ValueType.STRING, Check.nonBlank());

  /** CusText: ε, K. */
  public static final MechanismDefinition DEFINITION = new Definition("custext", List.of(),
      "CusText (Chen et al. 2023): the vocabulary is cut, in public frequency order, into disjoint groups of K "
          + "nearest free words; x becomes y of its own group G(x) with P(y|x) ∝ exp(ε·u(x,y)/2), "
          + "u = 1 − d(x,y)/max_{z∈G(x)} d(x,z).",
      false);

  /** CusText+: ε, K and the words kept verbatim. */
  public static final MechanismDefinition PLUS_DEFINITION = new Definition("custext+",
      List.of("custextplus", "custext-plus"),
      "CusText+ (Chen et al. 2023): CusText, except that the words of the list S (e.g. stopwords) are emitted "
          + "verbatim, unprotected.",
      true);

  /** What the two forms share. */
  private static final class Definition extends MechanismDefinition {
    private final boolean plus;

    Definition(String name, List<String> aliases, String summary, boolean plus) {
      super(name, aliases, summary, plus
          ? List.of(Parameter.of(EPSILON), Parameter.of(GROUP_SIZE), Parameter.of(VERBATIM))
          : List.of(Parameter.of(EPSILON), Parameter.of(GROUP_SIZE)));
      this.plus = plus;
    }

    @Override
    public String example() {
      return plus ? "custext+:epsilon=2,groupSize=8,verbatim=the;a" : "custext:epsilon=2,groupSize=8";
    }

    /** custext+ needs its list: ten English function words, a short stand-in for the paper's stopword list. */
    @Override
    public String evaluationDefault() {
      return plus ? name() + ":verbatim=a;an;the;of;to;and;in;is;it;that" : name();
    }

    /** K must not exceed the vocabulary: the model's size, so checked here, as a usage error. */
    @Override
    protected void validate(MechanismSpec spec, DpTextModel model) {
      int k = spec.get(GROUP_SIZE);
      int n = model.embeddings().size();
      if (k > n) {
        throw DpTextErrors.error("MECHANISM_PARAMETER_EXCEEDS_MODEL", "mechanism", name(), "parameter",
            GROUP_SIZE.name(), "value", k, "what", "vocabulary size", "limit", n);
      }
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      return new CusText(groups(model, spec.get(GROUP_SIZE)), model.embeddings(), spec.epsilon(),
          plus ? verbatimRanks(model.embeddings(), spec.get(VERBATIM)) : null);
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return new GroupMetric(groups(model, spec.get(GROUP_SIZE)),
          plus ? verbatimRanks(model.embeddings(), spec.get(VERBATIM)) : new int[0]);
    }

    @Override
    public boolean usesFrequencyRanks() {
      return true; // the groups are built in rank order
    }

    @Override
    protected String approximateSearchObstacle() {
      return "samples its output from exact probabilities over its group of K words, built from exact nearest "
          + "neighbours";
    }

    @Override
    protected String guarantee(Rendering r) {
      String within = "CusText" + (plus ? "+" : "") + ": " + r.text(EPSILON) + "-DP per token only among the words "
          + "of one group (the vocabulary cut into disjoint groups of " + r.text(GROUP_SIZE) + " close words; the "
          + "output is always in the input's group, so the group is revealed: d = 1 within a group, +∞ across)";
      if (!plus) {
        return within;
      }
      String kept = r.isSymbolic() ? "words of S" : verbatimWords(r.value(VERBATIM)).size() + " words listed in verbatim";
      return within + "; the " + kept + " (those in the vocabulary) are emitted verbatim, unprotected (d = +∞ to "
          + "every other word)";
    }
  }

  // ------------------------------------------------------------------------------------------ groups

  /** Groups per model and K, built once (they depend on neither ε nor the kept words). */
  private static final Map<DpTextModel, Map<Integer, Groups>> GROUPS =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** The groups of {@code model} for group size {@code k}, built on first use. */
  static Groups groups(DpTextModel model, int k) {
    Map<Integer, Groups> byK = GROUPS.computeIfAbsent(model, m -> Collections.synchronizedMap(new HashMap<>()));
    return byK.computeIfAbsent(k, kk -> Groups.build(model.embeddings(), model.neighbours(0), kk));
  }

  /**
   * The disjoint output sets: group g holds {@code members[start[g] .. start[g+1])}, its leader first,
   * then the picks nearest first; {@code groupOf[x]} is x's group. Deterministic: a function of the
   * embeddings and K only (the neighbour rows are the exact (distance, rank) order).
   */
  static final class Groups implements Serializable {
    private static final long serialVersionUID = 1L;

    final int k;
    final int[] members;
    final int[] start;
    final int[] groupOf;
    /** Leaders answered by an exact scan of the free words (their row ran out or was not conclusive). */
    final int scans;

    private Groups(int k, int[] members, int[] start, int[] groupOf, int scans) {
      this.k = k;
      this.members = members;
      this.start = start;
      this.groupOf = groupOf;
      this.scans = scans;
    }

    int count() {
      return start.length - 1;
    }

    int size(int g) {
      return start[g + 1] - start[g];
    }

    /** The greedy construction described in the class comment. */
    static Groups build(Embeddings e, NeighbourTable table, int k) {
      int n = e.size();
      if (k < 2 || k > n) {
        throw Check.failure("groupSize", "in [2, " + n + "] (at least 2 and at most the vocabulary size)", k,
            "K = 1 would emit every word verbatim; K = |V| puts the whole vocabulary in one group");
      }
      if (table.targetStart() != 0 || table.size() != n) { // groups() passes the model's table for rank 0
        throw new IllegalStateException("CusText needs neighbour rows over the whole vocabulary (target start "
            + "0, " + n + " rows), got target start " + table.targetStart() + " and " + table.size() + " rows");
      }
      boolean[] taken = new boolean[n];
      int[] groupOf = new int[n];
      int[] members = new int[n];
      List<Integer> starts = new ArrayList<>();
      int[] free = new int[n]; // the free words in rank order, compacted lazily by the scans
      for (int i = 0; i < n; i++) {
        free[i] = i;
      }
      int freeCount = n;
      int placed = 0;
      int scans = 0;
      int[] picks = new int[k - 1];
      for (int x = 0; x < n; x++) {
        if (taken[x]) {
          continue;
        }
        int g = starts.size();
        starts.add(placed);
        int left = n - placed;
        if (left < 2 * k) {
          for (int y = x; y < n; y++) {
            if (!taken[y]) {
              taken[y] = true;
              groupOf[y] = g;
              members[placed++] = y;
            }
          }
          break;
        }
        if (!fromRow(e, table, x, taken, picks)) {
          freeCount = compact(free, freeCount, taken);
          nearestFree(e, x, free, freeCount, picks);
          scans++;
        }
        taken[x] = true;
        groupOf[x] = g;
        members[placed++] = x;
        for (int y : picks) {
          taken[y] = true;
          groupOf[y] = g;
          members[placed++] = y;
        }
      }
      int[] start = new int[starts.size() + 1];
      for (int g = 0; g < starts.size(); g++) {
        start[g] = starts.get(g);
      }
      start[starts.size()] = n;
      return new Groups(k, members, start, groupOf, scans);
    }

    /**
     * The K − 1 nearest free words of x from its neighbour row, nearest first, when the row decides them:
     * it holds K − 1 free words other than x and the last of them is strictly nearer than every word
     * outside the row. Rows are sorted by (distance, rank), so the picks are then exactly the K − 1
     * smallest (distance, rank) among the free words.
     */
    private static boolean fromRow(Embeddings e, NeighbourTable table, int x, boolean[] taken, int[] picks) {
      int found = 0;
      int len = table.rowLength(x);
      for (int j = 0; j < len && found < picks.length; j++) {
        int y = table.neighbour(x, j);
        if (y != x && !taken[y]) {
          picks[found++] = y;
        }
      }
      if (found < picks.length) {
        return false;
      }
      double bound = table.outsideBound(x);
      return bound == Double.POSITIVE_INFINITY || e.distance(x, picks[picks.length - 1]) < bound;
    }

    /** Drops the taken words from {@code free[0 .. count)}, keeping rank order; returns the new count. */
    private static int compact(int[] free, int count, boolean[] taken) {
      int kept = 0;
      for (int i = 0; i < count; i++) {
        if (!taken[free[i]]) {
          free[kept++] = free[i];
        }
      }
      return kept;
    }

    /** The K − 1 smallest (distance, rank) among the free words other than x, nearest first: an exact scan. */
    private static void nearestFree(Embeddings e, int x, int[] free, int count, int[] picks) {
      int want = picks.length;
      // Max-heap on (distance, rank): the worst kept word on top.
      PriorityQueue<double[]> heap = new PriorityQueue<>(want + 1,
          (a, b) -> a[0] != b[0] ? Double.compare(b[0], a[0]) : Double.compare(b[1], a[1]));
      for (int i = 0; i < count; i++) {
        int y = free[i];
        if (y == x) {
          continue;
        }
        if (heap.size() < want) {
          heap.add(new double[] {e.distance(x, y), y});
          continue;
        }
        // free[] is in rank order, so y's rank exceeds every kept one: y enters iff d(x,y) < dw, the worst
        // kept distance. A squared sum ≥ dw²·(1 + 1e-12) has sqrt > dw (sqrt is correctly rounded), so the
        // sum may stop there; below it, the sum is complete and bit-identical to distance(x, y)'s.
        double dw = heap.peek()[0];
        double limit = dw * dw * (1 + 1e-12) + Double.MIN_NORMAL;
        double s = e.squaredDistanceBelow(x, y, limit);
        if (s < limit && Math.sqrt(s) < dw) {
          heap.poll();
          heap.add(new double[] {Math.sqrt(s), y});
        }
      }
      for (int j = want - 1; j >= 0; j--) {
        picks[j] = (int) heap.poll()[1];
      }
    }
  }

  /** The words of a ';'-separated list, blanks dropped. */
  static List<String> verbatimWords(String list) {
    List<String> words = new ArrayList<>();
    for (String w : list.split(";")) {
      if (!w.isBlank()) {
        words.add(w.strip());
      }
    }
    return words;
  }

  /** The ranks of the listed words that are in the vocabulary, sorted, without repeats. */
  static int[] verbatimRanks(Embeddings e, String list) {
    return verbatimWords(list).stream().mapToInt(e::indexOf).filter(r -> r >= 0).distinct().sorted().toArray();
  }

  /**
   * The metric the guarantee is stated in: 0 for a word and itself, 1 between two words of one group,
   * +∞ across groups and between a kept (verbatim) word and any other word.
   */
  record GroupMetric(Groups groups, int[] verbatim) implements WordMetric {
    @Override
    public String name() {
      return "CusText groups (K=" + groups.k + (verbatim.length > 0 ? ", " + verbatim.length + " verbatim words" : "")
          + "; 1 within a group, +∞ across)";
    }

    @Override
    public int size() {
      return groups.groupOf.length;
    }

    @Override
    public double distance(int i, int j) {
      if (i == j) {
        return 0;
      }
      if (groups.groupOf[i] != groups.groupOf[j]
          || Arrays.binarySearch(verbatim, i) >= 0 || Arrays.binarySearch(verbatim, j) >= 0) {
        return Double.POSITIVE_INFINITY;
      }
      return 1;
    }

    @Override
    public double maximumUpperBound() {
      int n = size();
      return n < 2 ? 0 : groups.count() > 1 || verbatim.length > 0 ? Double.POSITIVE_INFINITY : 1;
    }
  }

  // ----------------------------------------------------------------------------------------- sampler

  private final Groups groups;
  private final double epsilon;
  /** Per word x, its row of |G(x)| entries starts at rowOffset[x]. */
  private final int[] rowOffset;
  /** Per word x, the members of G(x) in increasing order of P(y|x) (ties: higher rank first). */
  private final int[] outputs;
  /** The matching cumulative probabilities; each row ends at exactly 1. */
  private final double[] cumulative;
  /** Ranks emitted verbatim (CusText+), sorted; empty for CusText. */
  private final int[] verbatim;
  private final boolean plus;

  /**
   * @param groups the output sets ({@link #groups(DpTextModel, int)})
   * @param embeddings the vocabulary the groups were built on
   * @param epsilon ε &gt; 0
   * @param verbatim ranks emitted verbatim, sorted, for CusText+ (may be empty); null for CusText
   */
  CusText(Groups groups, Embeddings embeddings, double epsilon, int[] verbatim) {
    EPSILON.check(epsilon);
    int n = embeddings.size();
    if (groups.groupOf.length != n) { // the definition builds the groups on the same embeddings
      throw new IllegalStateException("the groups cover " + groups.groupOf.length + " words, the vocabulary has " + n);
    }
    this.groups = groups;
    this.epsilon = epsilon;
    this.plus = verbatim != null;
    this.verbatim = plus ? verbatim.clone() : new int[0];
    this.rowOffset = new int[n + 1];
    for (int x = 0; x < n; x++) {
      rowOffset[x + 1] = rowOffset[x] + groups.size(groups.groupOf[x]);
    }
    this.outputs = new int[rowOffset[n]];
    this.cumulative = new double[rowOffset[n]];
    // Rows are independent: groups in parallel, each row computed exactly as one thread would.
    java.util.stream.IntStream.range(0, groups.count()).parallel().forEach(g -> {
      int s = groups.size(g);
      double[] d = new double[s];
      Integer[] order = new Integer[s];
      for (int i = 0; i < s; i++) {
        int x = groups.members[groups.start[g] + i];
        row(embeddings, groups.members, groups.start[g], s, x, epsilon, d, order, outputs, cumulative, rowOffset[x]);
      }
    });
  }

  /**
   * Word x's row: its group's members in increasing order of probability, with cumulative probabilities.
   * Weight of y relative to x itself: exp(−ε·d(x,y)/(2·D(x))) = exp(ε·(u(x,y) − 1)/2).
   */
  private static void row(Embeddings e, int[] members, int from, int s, int x, double epsilon, double[] d,
      Integer[] order, int[] outputs, double[] cumulative, int offset) {
    double max = 0;
    for (int i = 0; i < s; i++) {
      d[i] = e.distance(x, members[from + i]);
      max = Math.max(max, d[i]);
      order[i] = i;
    }
    // Increasing probability = decreasing distance; ties: higher rank first. Deterministic.
    Arrays.sort(order, (a, b) -> d[a] != d[b] ? Double.compare(d[b], d[a])
        : Integer.compare(members[from + b], members[from + a]));
    double total = 0;
    for (int i = 0; i < s; i++) {
      int j = order[i];
      double w = max > 0 ? StrictMath.exp(-0.5 * epsilon * (d[j] / max)) : 1.0;
      total += w;
      outputs[offset + i] = members[from + j];
      cumulative[offset + i] = total;
    }
    for (int i = 0; i < s; i++) {
      cumulative[offset + i] /= total;
    }
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    if (verbatim.length > 0 && Arrays.binarySearch(verbatim, word) >= 0) {
      return word;
    }
    int row = rowOffset[word];
    return outputs[row + ExponentialNeighbourSampler.pickExcess(cumulative, row, rowOffset[word + 1] - row,
        random.nextUniform())];
  }

  /** P(y | word) for every rank y, from the sampler's own tables. */
  @Override
  public double[] conditional(int word) {
    double[] f = new double[groups.groupOf.length];
    if (verbatim.length > 0 && Arrays.binarySearch(verbatim, word) >= 0) {
      f[word] = 1;
      return f;
    }
    double previous = 0;
    for (int i = rowOffset[word]; i < rowOffset[word + 1]; i++) {
      f[outputs[i]] = cumulative[i] - previous;
      previous = cumulative[i];
    }
    return f;
  }

  double epsilon() {
    return epsilon;
  }

  Groups groups() {
    return groups;
  }

  @Override
  public int outputStart() {
    return 0;
  }

  @Override
  public String name() {
    return plus ? "custext+" : "custext";
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s ε=%s K=%d (%d groups)", name(), epsilon, groups.k, groups.count());
  }
}
