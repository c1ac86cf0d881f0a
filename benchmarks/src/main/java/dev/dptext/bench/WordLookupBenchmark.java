package dev.dptext.bench;

import dev.dptext.embedding.WordList;
import java.nio.file.*;
import java.util.*;
/**
 * The token → word lookup, the vocabulary's open-addressing index ({@link WordList}) against the
 * {@code HashMap<String, Integer>} it replaced, on the same tokens, alternating in one JVM
 * ({@code scripts/bench/word-lookup.sh}): the first {@code V} GloVe words, the tokens of the first 5,000 IMDb
 * reviews (lower-cased, split on non-letters), each round on new String objects (their hashes not cached yet, as
 * a tokenizer's are not). Prints ns per token per round after two warm-up rounds.
 *
 * <p>Usage: {@code WordLookupBenchmark GLOVE.txt REVIEWS.jsonl V}.
 */
public final class WordLookupBenchmark {
  private WordLookupBenchmark() {}

  public static void main(String[] a) throws Exception {
    List<String> vocab = new ArrayList<>();
    try (var r = Files.newBufferedReader(Path.of(a[0]))) {
      String line; while ((line = r.readLine()) != null && vocab.size() < Integer.parseInt(a[2])) vocab.add(line.substring(0, line.indexOf(' ')));
    }
    String[] words = new LinkedHashSet<>(vocab).toArray(new String[0]);
    Map<String, Integer> map = new HashMap<>(words.length * 2);
    for (int i = 0; i < words.length; i++) map.putIfAbsent(words[i], i);
    WordList list = new WordList(words);
    List<String> tokens = new ArrayList<>();
    for (String l : Files.readAllLines(Path.of(a[1])).subList(0, 5000))
      for (String t : l.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}']+")) if (!t.isEmpty()) tokens.add(new String(t));
    String[] toks = tokens.toArray(new String[0]);
    long sink = 0;
    for (int round = 0; round < 12; round++) {
      // fresh strings each round, as a tokenizer makes them (their hash not cached yet)
      String[] fresh = new String[toks.length]; for (int i = 0; i < toks.length; i++) fresh[i] = new String(toks[i].toCharArray());
      String[] fresh2 = new String[toks.length]; for (int i = 0; i < toks.length; i++) fresh2[i] = new String(toks[i].toCharArray());
      long t0 = System.nanoTime(); for (String t : fresh) { Integer i = map.get(t); sink += i == null ? -1 : i; }
      long t1 = System.nanoTime(); for (String t : fresh2) sink += list.indexOf(t);
      long t2 = System.nanoTime();
      if (round >= 2) System.out.printf("round %d: HashMap %.1f ns/token, WordList %.1f ns/token%n", round, (t1-t0)/(double)toks.length, (t2-t1)/(double)toks.length);
    }
    System.out.println(toks.length + " tokens, " + words.length + " words; " + sink);
  }
}
