package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * What each registered mechanism declares about itself for the rest of dptext: an example with every
 * parameter away from its default (which every surface's equivalence test runs) and the spec the
 * evaluation commands run it by (a value for each required parameter).
 */
class MechanismDefinitionsTest {

  @Test
  void everyExampleNamesItsMechanismWithEveryParameterAwayFromItsDefault() {
    for (MechanismDefinition d : Mechanisms.ALL) {
      MechanismSpec example = MechanismSpec.parse(d.example());
      assertEquals(d.name(), example.name(), d.example());
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        Object value = example.values().get(p.name());
        assertNotNull(value, d.name() + "'s example gives no " + p.name());
        assertFalse(Objects.equals(value, p.defaultValue()),
            d.name() + "'s example leaves " + p.name() + " at its default " + p.defaultValue());
      }
    }
  }

  @Test
  void everyEvaluationDefaultParsesWithEachRequiredParameter() {
    for (MechanismDefinition d : Mechanisms.ALL) {
      MechanismSpec spec = MechanismSpec.parse(d.evaluationDefault());
      assertEquals(d.name(), spec.name(), d.evaluationDefault());
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        assertNotNull(spec.values().get(p.name()), d.name() + ": " + p.name());
      }
    }
  }
}
