package dev.dptext.classic.partitioned;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.classic.BroadcastValue;
import dev.dptext.classic.JavaSerialized;
import dev.dptext.embedding.WordList;
import dev.dptext.knn.RowDistances;
import dev.dptext.mechanism.CandidateEnvelope;
import dev.dptext.mechanism.ExponentialMechanism;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.NearestWordMechanism;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.PartitionedModel;
import dev.dptext.model.VocabularyCentre;
import dev.dptext.random.RandomStream;
import dev.dptext.random.RowSeeder;
import dev.dptext.random.SecretKey;
import dev.dptext.sanitizer.Sanitizer;
import dev.dptext.sanitizer.TokenSink;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import dev.dptext.text.TextSanitizer;
import dev.dptext.text.TokenCounts;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * Sanitizes a DataFrame against a {@link PartitionedModel}: the vectors stay in vocabulary shards on
 * the executors and the work goes to them in rounds; the output is byte-identical to the broadcast
 * path's for the same model, key, ids and settings (see the package documentation for why).
 *
 * <p>Executors receive one broadcast of a words-only {@link Sanitizer} (vocabulary, mechanism
 * parameters, row seeder); shuffled records carry row numbers, ranks, vectors, stream positions and
 * the rows themselves, never the key.
 */
public final class PartitionedSanitizer {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PartitionedSanitizer.class);
  private final SparkSession spark;
  private final PartitionedModel model;
  private final Broadcast<JavaSerialized<Sanitizer>> sanitizer;
  /** SanText/SanText+: the frequent words' vectors and envelopes (null for the noise mechanisms). */
  private Broadcast<JavaSerialized<HeadRows>> head; // per transform when the rows are computed on demand
  private final WordMechanism mechanism;
  private final int shards;
  private final int headWords;
  private final AtomicInteger rounds = new AtomicInteger();

  /**
   * @param sanitizer a sanitizer over the model's words ({@link dev.dptext.embedding.WordList}) and a
   *     mechanism built with {@code buildForShards}
   * @param shards how many vocabulary shards to spread the model over (≥ 1)
   */
  public PartitionedSanitizer(SparkSession spark, PartitionedModel model, Sanitizer sanitizer, int shards) {
    this(spark, model, sanitizer, shards, -1);
  }

  /** @param headWords the broadcast head's size, or -1 for the default ({@link HeadRows}) */
  PartitionedSanitizer(SparkSession spark, PartitionedModel model, Sanitizer sanitizer, int shards, int headWords) {
    WordMechanism m = sanitizer.text().mechanism();
    if (!(m instanceof NearestWordMechanism) && !(m instanceof ExponentialMechanism)) {
      throw DpTextErrors.error("MECHANISM_NOT_PARTITIONED", "mechanism", m.name(), "setting",
          Settings.MODEL_LAYOUT.confKey());
    }
    this.spark = spark;
    this.model = model;
    this.mechanism = m;
    this.shards = shards;
    this.headWords = headWords < 0 ? HeadRows.defaultWords(model) : headWords;
    this.sanitizer = BroadcastValue.raw(spark.sparkContext(), sanitizer);
    HeadRows headRows = null;
    if (m instanceof ExponentialMechanism e && model.hasTable(e.targetStart()) && !model.tablesOnDemand()) {
      headRows = HeadRows.load(spark, model, e, this.headWords);
    }
    // With rows on demand the head is made by each transform, from the rows its input needs.
    this.head = headRows == null ? null : BroadcastValue.raw(spark.sparkContext(), headRows);
  }

  /**
   * A partitioned sanitizer for these options: the driver reads the model's words (not its vectors),
   * builds the mechanism from its parameters and the model's shape, and broadcasts both with the row
   * seeder.
   */
  public static PartitionedSanitizer of(SparkSession spark, PartitionedModel model, DpTextOptions o, SecretKey key,
      int shards) {
    return of(spark, model, o, key, shards, -1);
  }

  static PartitionedSanitizer of(SparkSession spark, PartitionedModel model, DpTextOptions o, SecretKey key,
      int shards, int headWords) {
    dev.dptext.classic.Classic.requireClassic(spark, "Sanitizing with a partitioned model (" + model.vectorsPath()
        + ")", PartitionedModelBuilder.CONNECT_ALTERNATIVE);
    List<Row> wordRows = spark.read().parquet(model.vectorsPath()).select("rank", "word").collectAsList();
    String[] words = new String[model.size()];
    for (Row r : wordRows) {
      words[r.getInt(0)] = r.getString(1);
    }
    MechanismSpec spec = o.mechanismSpec();
    if (!spec.definition().hasPartitionedForm()) {
      throw DpTextErrors.error("MECHANISM_NOT_PARTITIONED", "mechanism", spec.name(), "setting",
          Settings.MODEL_LAYOUT.confKey());
    }
    WordMechanism mechanism = spec.definition().buildForShards(spec, model.shape());
    TextSanitizer text = new TextSanitizer(new WordList(words), mechanism, o.oovPolicy(),
        o.get(Settings.OOV_PLACEHOLDER), o.casePolicy());
    Sanitizer s = new Sanitizer(text, new RowSeeder(key, o.get(Settings.PURPOSE)), o.idMode());
    return new PartitionedSanitizer(spark, model, s, shards, headWords);
  }

  /** The number of rounds the last {@link #transform} ran (exponential mechanisms: rejection rounds). */
  public int rounds() {
    return rounds.get();
  }

  /**
   * Adds (or replaces) {@code outputColumn} with the sanitized {@code inputColumn}, rows in input order.
   *
   * @param idColumn the id column (id mode column), else null
   */
  public Dataset<Row> transform(Dataset<Row> df, String inputColumn, String outputColumn, String idColumn) {
    return transform(df, inputColumn, outputColumn, idColumn, null);
  }

  /** As above, adding each row's token counts to {@code counters} (may be null). */
  public Dataset<Row> transform(Dataset<Row> df, String inputColumn, String outputColumn, String idColumn,
      TokenSink counters) {
    rounds.set(0);
    StructType schema = df.schema();
    int textIndex = schema.fieldIndex(inputColumn);
    int idIndex = idColumn == null ? -1 : schema.fieldIndex(idColumn);
    boolean replace = Arrays.asList(schema.fieldNames()).contains(outputColumn);
    int outIndex = replace ? schema.fieldIndex(outputColumn) : schema.length();
    StructType outSchema = replace ? schema : schema.add(outputColumn, DataTypes.StringType);
    Broadcast<JavaSerialized<Sanitizer>> b = sanitizer;

    // Row numbers are internal join keys only; each row's randomness comes from its id (or content).
    JavaPairRDD<Long, Row> rows = df.javaRDD().zipWithIndex().mapToPair(Tuple2::swap)
        .persist(StorageLevel.MEMORY_AND_DISK());
    JavaPairRDD<Long, RowWork> work = rows.flatMapToPair(e -> {
      Row r = e._2();
      if (r.isNullAt(textIndex)) {
        return Collections.emptyIterator();
      }
      Sanitizer s = b.getValue().get();
      String text = r.getString(textIndex);
      TextSanitizer.Tokenized t = s.text().tokenize(text);
      RandomStream stream = s.streamFor(text, idIndex < 0 ? null : r.get(idIndex));
      return List.of(new Tuple2<>(e._1(), new RowWork(Arrays.copyOf(t.ranks(), t.count()), stream.state())))
          .iterator();
    }).partitionBy(new HashPartitioner(rows.getNumPartitions()));
    // The rows' work keeps this partitioner through every round (mapValues, filter, cogroup with it):
    // only requests and answers are shuffled, never the rows' accumulated state.

    boolean exponential = mechanism instanceof ExponentialMechanism;
    int tableStart = exponential ? ((ExponentialMechanism) mechanism).targetStart() : -1;
    if (exponential && !model.hasTable(tableStart)) {
      throw new IllegalStateException("the partitioned model has no candidate table for target start " + tableStart
          + " (" + mechanism.name() + "); rebuild it with that table, or with tables on demand");
    }
    JavaRDD<VocabularyShard> shardRdd = exponential && model.tablesOnDemand()
        ? shardsWithRowsOnDemand(work, tableStart)
        : Shards.load(spark, model.vectorsPath(), exponential ? model.tablePath(tableStart) : null, tableStart,
            model.size(), model.dim(), shards);
    // The shards stay persisted for the session: the result is lazy and every action on it reads them.
    // Round 1: every row fetches its input words' vectors (and candidate rows).
    // SanText/SanText+ rows skip the head words, whose vectors and envelopes are broadcast.
    int headLimit = exponential ? head.value().get().limit : 0;
    work = fetch(work, shardRdd, r -> distinct(r.ranks, headLimit), exponential);
    JavaPairRDD<Long, RowWork> finished = exponential ? exponentialRounds(work, shardRdd) : nearestRounds(work, shardRdd);
    JavaRDD<Row> out = rows.leftOuterJoin(finished).sortByKey().values().map(e -> {
      Row r = e._1();
      Object[] values = new Object[outSchema.length()];
      for (int i = 0; i < r.length(); i++) {
        values[i] = r.get(i);
      }
      String result = null;
      if (!r.isNullAt(textIndex)) {
        Sanitizer s = b.getValue().get();
        String text = r.getString(textIndex);
        TextSanitizer.Tokenized t = s.text().tokenize(text);
        if (!e._2().isPresent()) { // every row with a text has work, even without vocabulary tokens
          throw new IllegalStateException("dptext: a row's mechanism work was lost between rounds");
        }
        RandomStream stream = RandomStream.resume(e._2().get().state);
        int[] outputs = e._2().get().outputs;
        TokenCounts counts = counters == null ? null : new TokenCounts();
        result = s.text().assemble(t, outputs, stream, counts);
        if (counts != null) {
          counters.add(counts);
        }
      }
      values[outIndex] = result;
      return RowFactory.create(values);
    });
    return spark.createDataFrame(out, outSchema);
  }

  /**
   * The shards with the candidate rows of every vocabulary word the rows use, computed now
   * ({@link OnDemandRows}) over the model's own shard layout; sets this run's broadcast head from the
   * head words' rows among them.
   */
  private JavaRDD<VocabularyShard> shardsWithRowsOnDemand(JavaPairRDD<Long, RowWork> work, int tableStart) {
    JavaRDD<VocabularyShard> vectors = Shards.load(spark, model.vectorsPath(), null, -1, model.size(), model.dim(),
        shards);
    JavaRDD<VocabularyShard> targets = shards == model.shards() ? vectors
        : Shards.load(spark, model.vectorsPath(), null, -1, model.size(), model.dim(), model.shards());
    JavaRDD<Integer> used = work.values().flatMap(w -> Arrays.stream(w.ranks).boxed().iterator()).distinct();
    Dataset<Row> rows = OnDemandRows.compute(spark, model, targets, used, tableStart);
    if (targets != vectors) {
      targets.unpersist(false); // the rows are computed and persisted
    }
    List<Row> headRows = rows.filter(org.apache.spark.sql.functions.col("rank").lt(headWords)).collectAsList();
    head = BroadcastValue.raw(spark.sparkContext(),
        HeadRows.onDemand(spark, model, (ExponentialMechanism) mechanism, headWords, headRows));
    return Shards.withTable(vectors, rows.javaRDD(), tableStart, model.size());
  }

  /** Only rows that have vocabulary tokens take part in the rounds. */
  private static Set<Integer> distinct(int[] ranks, int from) {
    Set<Integer> s = new HashSet<>();
    for (int r : ranks) {
      if (r >= from) {
        s.add(r);
      }
    }
    return s;
  }

  interface Wanted extends Serializable {
    Set<Integer> of(RowWork w);
  }

  /**
   * One lookup round: each row asks for the vectors (and candidate rows, if {@code tables}) of the
   * ranks {@code wanted} names; requests go to the shard holding the rank and come back joined to
   * their rows.
   */
  private JavaPairRDD<Long, RowWork> fetch(JavaPairRDD<Long, RowWork> work, JavaRDD<VocabularyShard> shardRdd,
      Wanted wanted, boolean tables) {
    rounds.incrementAndGet();
    int shardSize = VocabularyShard.shardSize(model.size(), shards);
    Broadcast<JavaSerialized<Sanitizer>> b = sanitizer;
    JavaPairRDD<Integer, Tuple2<Long, Integer>> requests = work.flatMapToPair(e -> {
      List<Tuple2<Integer, Tuple2<Long, Integer>>> out = new ArrayList<>();
      for (int rank : wanted.of(e._2())) {
        out.add(new Tuple2<>(VocabularyShard.shardOf(rank, shardSize), new Tuple2<>(e._1(), rank)));
      }
      return out.iterator();
    }).partitionBy(new HashPartitioner(shards));
    JavaPairRDD<Long, Fetched> answers = shardRdd.zipPartitions(requests.values(), (shardIt, reqs) -> {
      VocabularyShard shard = shardIt.next();
      ExponentialMechanism exp = tables ? (ExponentialMechanism) b.getValue().get().text().mechanism() : null;
      List<Tuple2<Long, Fetched>> out = new ArrayList<>();
      while (reqs.hasNext()) {
        Tuple2<Long, Integer> req = reqs.next();
        int rank = req._2();
        CandidateEnvelope env = null;
        if (exp != null) {
          int local = rank - shard.lo;
          env = exp.envelope(shard.neighbours[local], shard.distances[local], shard.bounds[local]);
        }
        out.add(new Tuple2<>(req._1(), new Fetched(rank, shard.vector(rank), env)));
      }
      return out.iterator();
    }).mapToPair(t -> t);
    return work.cogroup(answers).mapValues(g -> {
      RowWork w = g._1().iterator().next().copy();
      for (Fetched f : g._2()) {
        w.vectors.put(f.rank, f.vector);
        if (f.envelope != null) {
          w.envelopes.put(f.rank, f.envelope);
        }
      }
      return w;
    });
  }

  record Fetched(int rank, float[] vector, CandidateEnvelope envelope) implements Serializable {}

  /**
   * Laplace, Mahalanobis, Vickrey: the row draws its noise (all tokens, in order, as the broadcast
   * path does before its search), every noisy vector visits every shard for its exact top k, a reduce
   * per query merges them by (distance, rank), and the row makes its selection draws in order.
   */
  private JavaPairRDD<Long, RowWork> nearestRounds(JavaPairRDD<Long, RowWork> work, JavaRDD<VocabularyShard> shardRdd) {
    Broadcast<JavaSerialized<Sanitizer>> b = sanitizer;
    int s = shards;
    JavaPairRDD<Long, RowWork> drawn = work.mapValues(original -> {
      RowWork w = original.copy();
      NearestWordMechanism mech = (NearestWordMechanism) b.getValue().get().text().mechanism();
      int m = mech.dim();
      int n = w.ranks.length;
      double[] points = new double[n * m];
      for (int i = 0; i < n; i++) {
        float[] v = w.vectors.get(w.ranks[i]);
        for (int d = 0; d < m; d++) {
          points[i * m + d] = v[d];
        }
      }
      RandomStream stream = RandomStream.resume(w.state);
      mech.addNoise(points, n, stream);
      w.state = stream.state();
      w.vectors.clear();
      w.points = points;
      return w;
    }).persist(StorageLevel.MEMORY_AND_DISK());
    rounds.incrementAndGet();
    JavaPairRDD<Integer, Query> queries = drawn.flatMapToPair(e -> {
      RowWork w = e._2();
      List<Tuple2<Integer, Query>> out = new ArrayList<>();
      if (w.ranks.length == 0) {
        return out.iterator();
      }
      int m = w.points.length / w.ranks.length;
      for (int i = 0; i < w.ranks.length; i++) {
        double[] q = Arrays.copyOfRange(w.points, i * m, (i + 1) * m);
        for (int shard = 0; shard < s; shard++) {
          out.add(new Tuple2<>(shard, new Query(e._1(), i, q)));
        }
      }
      return out.iterator();
    }).partitionBy(new HashPartitioner(shards));
    JavaPairRDD<Tuple2<Long, Integer>, TopK> nearest = shardRdd.zipPartitions(queries.values(), (shardIt, qs) -> {
      VocabularyShard shard = shardIt.next();
      NearestWordMechanism mech = (NearestWordMechanism) b.getValue().get().text().mechanism();
      int k = mech.neighboursWanted();
      List<Query> batch = new ArrayList<>();
      qs.forEachRemaining(batch::add);
      if (batch.isEmpty() || shard.count == 0) {
        return Collections.<Tuple2<Tuple2<Long, Integer>, TopK>>emptyIterator();
      }
      int m = shard.dim;
      double[] points = new double[batch.size() * m];
      for (int i = 0; i < batch.size(); i++) {
        System.arraycopy(batch.get(i).point, 0, points, i * m, m);
      }
      TopK[] found = shard.nearest(points, batch.size(), k);
      List<Tuple2<Tuple2<Long, Integer>, TopK>> out = new ArrayList<>(batch.size());
      for (int i = 0; i < batch.size(); i++) {
        out.add(new Tuple2<>(new Tuple2<>(batch.get(i).row, batch.get(i).token), found[i]));
      }
      return out.iterator();
    }).mapToPair(t -> t);
    int k = ((NearestWordMechanism) mechanism).neighboursWanted();
    JavaPairRDD<Long, Tuple2<Integer, TopK>> reduced = nearest.reduceByKey((x, y) -> TopK.merge(x, y, k))
        .mapToPair(e -> new Tuple2<>(e._1()._1(), new Tuple2<>(e._1()._2(), e._2())));
    return drawn.cogroup(reduced).mapValues(g -> {
      RowWork w = g._1().iterator().next().copy();
      NearestWordMechanism mech = (NearestWordMechanism) b.getValue().get().text().mechanism();
      int n = w.ranks.length;
      int[] words = new int[n * k];
      double[] distances = new double[n * k];
      for (Tuple2<Integer, TopK> t : g._2()) {
        System.arraycopy(t._2().words(), 0, words, t._1() * k, k);
        System.arraycopy(t._2().distances(), 0, distances, t._1() * k, k);
      }
      RandomStream stream = RandomStream.resume(w.state);
      for (int i = 0; i < n; i++) {
        w.outputs[i] = mech.choose(words, distances, i * k, stream);
      }
      w.state = stream.state();
      w.next = n;
      w.points = null;
      return w;
    });
  }

  record Query(long row, int token, double[] point) implements Serializable {}

  /**
   * SanText, SanText+: rejection rounds. Each round a row replays its tokens from its last confirmed
   * position with the broadcast path's own sampling code; a uniform proposal whose vector it lacks is
   * answered "accepted" provisionally and the vector requested. If the round needed no unknown vector
   * the row is done; otherwise it resumes next round from the start of the first token that needed one
   * (everything before is confirmed), with the requested vectors fetched. Every round confirms at least
   * that token's first unknown proposal, so the loop ends; in practice after a few rounds.
   */
  private JavaPairRDD<Long, RowWork> exponentialRounds(JavaPairRDD<Long, RowWork> work, JavaRDD<VocabularyShard> shardRdd) {
    Broadcast<JavaSerialized<Sanitizer>> b = sanitizer;
    int dim = model.dim();
    VocabularyCentre centre = model.centre();
    Broadcast<JavaSerialized<HeadRows>> h = head;
    JavaPairRDD<Long, RowWork> done = null;
    JavaPairRDD<Long, RowWork> active = work;
    while (true) {
      // Each round's result stays persisted: the rows it finished are read from it at the end.
      JavaPairRDD<Long, Tuple2<RowWork, Set<Integer>>> ran = active.mapValues(original -> {
        RowWork w = original.copy();
        ExponentialMechanism mech = (ExponentialMechanism) b.getValue().get().text().mechanism();
        Set<Integer> missing = replay(w, mech, dim, centre, h.value().get());
        return new Tuple2<>(w, missing);
      }).persist(StorageLevel.MEMORY_AND_DISK());
      JavaPairRDD<Long, RowWork> finishedNow = ran.filter(e -> e._2()._2().isEmpty()).mapValues(Tuple2::_1);
      done = done == null ? finishedNow : done.union(finishedNow);
      JavaPairRDD<Long, Tuple2<RowWork, Set<Integer>>> pending = ran.filter(e -> !e._2()._2().isEmpty());
      if (pending.isEmpty()) { // one job: runs the round
        LOG.info("partitioned {}: {} rounds", mechanism.name(), rounds.get());
        return done;
      }
      JavaPairRDD<Long, RowWork> asking = pending.mapValues(t -> {
        RowWork w = t._1().copy();
        w.wanted = t._2();
        return w;
      });
      active = fetch(asking, shardRdd, w -> w.wanted, false);
    }
  }

  /**
   * Runs the row's sampler from its confirmed position; returns the ranks whose vectors were needed
   * and unknown (empty: the row is done and its state is the stream after its last draw).
   *
   * <p>An unknown proposal is guessed: accepted iff its squared acceptance limit exceeds the expected
   * squared distance to a uniform word ({@link VocabularyCentre}; always accepted without one). The
   * guess only chooses which path to request vectors for; a wrong guess costs a round, never
   * exactness, because only proposals decided with their real vectors are ever confirmed.
   */
  static Set<Integer> replay(RowWork w, ExponentialMechanism mech, int dim, VocabularyCentre centre, HeadRows head) {
    RandomStream stream = RandomStream.resume(w.state);
    Set<Integer> missing = new HashSet<>();
    int firstUnknownToken = -1;
    long[] firstUnknownState = null;
    for (int t = w.next; t < w.ranks.length; t++) {
      long[] tokenStart = stream.state();
      int x = w.ranks[t];
      float[] vx = vector(w, head, x);
      CandidateEnvelope envelope = w.envelopes.containsKey(x) || head == null ? w.envelopes.get(x) : head.envelope(x);
      boolean[] unknown = {false};
      double expected = centre == null ? Double.NEGATIVE_INFINITY : centre.expectedSquaredDistance(vx);
      w.outputs[t] = mech.sample(x, envelope, (y, limit) -> {
        float[] vy = vector(w, head, y);
        if (vy == null) {
          missing.add(y);
          unknown[0] = true;
          return limit > expected; // provisional: confirmed or corrected next round
        }
        return RowDistances.squaredDistanceBelow(vx, 0, vy, 0, dim, limit) < limit;
      }, stream);
      if (unknown[0] && firstUnknownToken < 0) {
        firstUnknownToken = t;
        firstUnknownState = tokenStart;
      }
    }
    if (missing.isEmpty()) {
      w.next = w.ranks.length;
      w.state = stream.state();
    } else {
      w.next = firstUnknownToken;
      w.state = firstUnknownState;
    }
    return missing;
  }

  /** A vector the row has fetched, or a broadcast head word's; null if neither. */
  private static float[] vector(RowWork w, HeadRows head, int rank) {
    float[] v = w.vectors.get(rank);
    return v != null || head == null ? v : head.vector(rank);
  }
}
