//! Tokens of HLO text.
