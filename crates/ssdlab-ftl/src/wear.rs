//! Wear summaries: program/erase cycles over the blocks of an array.

/// Minimum, mean and maximum program/erase cycles over all blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WearSummary {
    /// Fewest P/E cycles of any block.
    pub min: u32,
    /// Mean P/E cycles.
    pub mean: f64,
    /// Most P/E cycles of any block.
    pub max: u32,
}
