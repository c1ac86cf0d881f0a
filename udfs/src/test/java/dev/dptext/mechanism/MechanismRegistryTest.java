package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.WordMetric;
import dev.dptext.model.DpTextModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How {@link Mechanisms#ALL} is put together: the built-in mechanisms, then those of the
 * {@link MechanismProvider}s sorted by name, every name and alias claimed once. (The toy mechanism's
 * provider is on another test JVM's classpath only: {@code dev.dptext.spark.ToyMechanismSurfacesTest}.)
 */
class MechanismRegistryTest {

  @Test
  void thisJvmsRegistryIsTheBuiltInOne() {
    // The generated documents' tests compare against this registry: no test mechanism may leak into it.
    assertEquals(Mechanisms.BUILT_IN, Mechanisms.ALL);
  }

  @Test
  void providedMechanismsFollowTheBuiltInOnesSortedByName() {
    MechanismDefinition b = definition("zeta-b");
    MechanismDefinition a = definition("alpha-a");
    List<MechanismDefinition> expected = new ArrayList<>(Mechanisms.BUILT_IN);
    expected.addAll(List.of(a, b));
    assertEquals(expected, Mechanisms.registry(Mechanisms.BUILT_IN, List.of(() -> b, () -> a)));
  }

  @Test
  void aNameClaimedTwiceIsRefusedNamingBoth() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Mechanisms.registry(Mechanisms.BUILT_IN, List.of(() -> definition("santext"))));
    assertTrue(e.getMessage().contains("'santext': santext (built in) and santext (from "
        + MechanismRegistryTest.class.getName()), e.getMessage());
    e = assertThrows(IllegalStateException.class, () -> Mechanisms.registry(List.of(),
        List.of(() -> definition("toy-one", "toy"), () -> definition("toy-two", "toy"))));
    assertTrue(e.getMessage().startsWith("Two mechanisms claim the name 'toy': toy-one (from "), e.getMessage());
    assertTrue(e.getMessage().contains("and toy-two (from "), e.getMessage());
  }

  @Test
  void aNameNoSettingCouldSelectIsRefused() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Mechanisms.registry(List.of(), List.of(() -> definition("Toy_RR"))));
    assertTrue(e.getMessage().contains("'Toy_RR', which no setting could select"), e.getMessage());
  }

  /** A definition with a name and nothing else: the registry reads only names. */
  private static MechanismDefinition definition(String name, String... aliases) {
    return new MechanismDefinition(name, List.of(aliases), "a test's", List.of()) {
      @Override
      public String example() {
        return name;
      }

      @Override
      public WordMechanism build(MechanismSpec spec, DpTextModel model) {
        throw new UnsupportedOperationException();
      }

      @Override
      public WordMetric metric(MechanismSpec spec, DpTextModel model) {
        throw new UnsupportedOperationException();
      }

      @Override
      protected String guarantee(Rendering r) {
        return name;
      }
    };
  }
}
