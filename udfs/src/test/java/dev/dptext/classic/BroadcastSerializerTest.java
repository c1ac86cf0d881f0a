package dev.dptext.classic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RowSeeder;
import dev.dptext.random.SecretKey;
import dev.dptext.sanitizer.Sanitizer;
import dev.dptext.settings.IdMode;
import dev.dptext.spark.DpText;
import dev.dptext.testing.Fixtures;
import dev.dptext.text.TextSanitizer;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * Executors receive the sanitizer through {@code spark.serializer}, whatever the cluster sets it to.
 * Local-mode tests never exercise this (executors there share the driver's copy of a broadcast), so
 * this test round-trips what {@link DpText} broadcasts, a {@link JavaSerialized} sanitizer, through
 * Spark's own Java and Kryo serializers — Kryo is common on production clusters and ignores
 * {@code readObject}, which rebuilds the word index and the nearest-word kernels — and checks the
 * copy sanitizes exactly like the original.
 */
class BroadcastSerializerTest {
  private static final String TEXT = "The film was a delight , though the plot felt thin and the ending rushed .";
  private static final SecretKey KEY = SecretKey.parse("00112233445566778899aabbccddeeff", "test key");

  static Stream<Arguments> mechanisms() {
    return Stream.of(
        MechanismSpec.of("santext", java.util.Map.of("epsilon", 3)),
        MechanismSpec.of("santext+", java.util.Map.of("epsilon", 3, "w", 0.9, "p", 0.3)),
        MechanismSpec.of("laplace", java.util.Map.of("epsilon", 10)),
        MechanismSpec.of("mahalanobis", java.util.Map.of("epsilon", 10, "lambda", 0.5)),
        MechanismSpec.of("vickrey", java.util.Map.of("epsilon", 10, "t", 0.5, "lambda", 0)),
        MechanismSpec.of("vickrey-topk", java.util.Map.of("epsilon", 10, "t", List.of(0.5, 0.25), "lambda", 0.5)),
        MechanismSpec.of("brr", java.util.Map.of("epsilon", 2, "bits", 64)))
        .flatMap(spec -> Stream.of(
            Arguments.of(spec, new JavaSerializer(new SparkConf())),
            Arguments.of(spec, new KryoSerializer(new SparkConf()))));
  }

  @ParameterizedTest(name = "{0} through {1}")
  @MethodSource("mechanisms")
  void aBroadcastCopySanitizesLikeTheOriginal(MechanismSpec spec, Serializer serializer) {
    Embeddings embeddings = Fixtures.gloveTop2000();
    DpTextModel model = DpTextModel.of(embeddings, "fixture", 16);
    Sanitizer original = new Sanitizer(
        new TextSanitizer(embeddings, spec.build(model)), new RowSeeder(KEY, "dptext"), IdMode.COLUMN);

    Sanitizer copy = roundTrip(serializer.newInstance(), JavaSerialized.of(original)).get();

    for (long id = 0; id < 20; id++) {
      assertEquals(original.sanitize(TEXT, id, null), copy.sanitize(TEXT, id, null), spec.describe() + ", id " + id);
    }
    assertNotEquals(copy.sanitize(TEXT, 1L, null), copy.sanitize(TEXT, 2L, null), "the id must key the output");
  }

  /** The control: without the holder, Kryo's copy has no word index (this is what executors got). */
  @Test
  void withoutTheHolderKryoLosesTheRebuiltState() {
    Embeddings embeddings = Fixtures.gloveTop2000();
    Sanitizer bare = new Sanitizer(
        new TextSanitizer(embeddings, MechanismSpec.of("santext", java.util.Map.of("epsilon", 3)).build(DpTextModel.of(embeddings, "fixture", 16))),
        new RowSeeder(KEY, "dptext"), IdMode.COLUMN);
    Sanitizer copy = roundTrip(new KryoSerializer(new SparkConf()).newInstance(), bare);
    assertThrows(NullPointerException.class, () -> copy.sanitize(TEXT, 1L, null));
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(SerializerInstance serializer, T value) {
    ClassTag<T> tag = ClassTag$.MODULE$.apply((Class<T>) value.getClass());
    ByteBuffer bytes = serializer.serialize(value, tag);
    return serializer.deserialize(bytes, tag);
  }
}
