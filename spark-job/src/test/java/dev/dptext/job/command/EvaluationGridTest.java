package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.evaluation.DownstreamUtility;
import dev.dptext.job.evaluate.EpsilonGrid;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The evaluation commands' default mechanisms and ε grids: every mechanism runs, matched where it can be. */
class EvaluationGridTest {
  @Test
  void everyRegisteredMechanismIsADefaultThatParses() {
    List<String> defaults = EvaluationGrid.defaultMechanisms();
    assertEquals(Mechanisms.names(), defaults.stream().map(d -> MechanismSpec.parse(d).name()).toList());
  }

  /** Each evaluation command's help names the default mechanisms as they run (no hand-kept list to go stale). */
  @Test
  void theHelpOfEveryEvaluationCommandNamesTheDefaultsThatRun() {
    var cli = Commands.commandLine();
    for (var c : List.of(cli.getSubcommands().get("tune"), cli.getSubcommands().get("evaluate").getSubcommands()
        .get("utility"), cli.getSubcommands().get("evaluate").getSubcommands().get("mia"))) {
      // Compared without whitespace: the help wraps its lines, also inside a spec.
      String help = c.getUsageMessage().replaceAll("\\s+", "");
      assertTrue(help.contains(EvaluationGrid.defaultMechanismsText().replaceAll("\\s+", "")),
          c.getCommandName() + ": " + help);
    }
    assertTrue(EvaluationGrid.defaultMechanismsText().contains("custext+:verbatim="),
        EvaluationGrid.defaultMechanismsText());
  }

  /**
   * On the shared grid, a mechanism on the Euclidean metric gets Laplace's ε, and CusText (whose metric puts
   * words of different groups at infinite distance) runs at the grid's ε itself, unmatched, and the run says so.
   */
  @Test
  void aMechanismWithInfiniteDistancesRunsUnmatchedAtTheGridsEpsilon() {
    DpTextModel model = DpTextModel.of(EmbeddedDefault.embeddings().topWords(300), "top 300", 16);
    EpsilonGrid grid = EpsilonGrid.parse(List.of("4,8"));
    List<MechanismSpec> specs = List.of(MechanismSpec.parse("tem"), MechanismSpec.parse("custext:groupSize=10"));
    List<DownstreamUtility.MatchedSpec>[] matched = new List[1];
    JobFixtures.Output o = JobFixtures.capture(() -> matched[0] = grid.match(SharedSpark.get(), model, specs, 0, 1));
    assertTrue(o.out().contains("custext's metric puts some word pairs at infinite distance"), o.out());
    assertEquals(4, matched[0].size());
    for (DownstreamUtility.MatchedSpec m : matched[0]) {
      assertEquals(m.nominalEpsilon(), m.spec().epsilon(), 1e-9, m.spec() + ": Euclidean as Laplace, or unmatched");
    }
  }
}
