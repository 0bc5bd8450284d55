// Package lexicon is kb's one English word list: the stop words every text
// comparison drops, the crude stemmers, the spelling-out of contractions
// and the casing helpers that put a sentence together. It knows words, not
// documents: every layer that compares or phrases text takes its words
// from here, so that two layers never disagree about what "the" or
// "don't" is.
//
// Which words are stop words decides what extraction, recall and search
// see, so the callers' lists are kept as they were measured: one core of
// function words every caller drops, and a named extension per purpose
// (StopExtract, StopFacts, StopQuery, StopCue). Merging two of them is a
// change of behaviour to measure, not a tidy-up.
package lexicon
