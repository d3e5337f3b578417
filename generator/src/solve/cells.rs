//! Packed values held in memory, in one- or two-byte cells.

/// One packed [`Value`](togyz_tb::Value) (see [`Value::pack`](togyz_tb::Value::pack)) held in memory, in one or two
/// bytes. Distances up to 126 plies fit a byte (every value up to 10 stones
/// does), which halves the memory that the solved levels take.
pub trait Cell: Copy + Default + Send + Sync + Into<u16> + 'static {
    /// The cell holding `packed`, if it fits.
    fn from_packed(packed: u16) -> Option<Self>;
}

impl Cell for u8 {
    #[inline]
    fn from_packed(packed: u16) -> Option<u8> {
        u8::try_from(packed).ok()
    }
}

impl Cell for u16 {
    #[inline]
    fn from_packed(packed: u16) -> Option<u16> {
        Some(packed)
    }
}

/// The packed values of one solved level, in index order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelValues {
    /// One byte a position.
    Narrow(Vec<u8>),
    /// Two bytes a position, when some distance is over 126 plies.
    Wide(Vec<u16>),
}

impl LevelValues {
    /// The level in the narrowest cells that hold all of `packed`.
    pub fn from_packed(packed: Vec<u16>) -> LevelValues {
        if packed.iter().all(|&v| u8::from_packed(v).is_some()) {
            LevelValues::Narrow(packed.into_iter().map(|v| v as u8).collect())
        } else {
            LevelValues::Wide(packed)
        }
    }

    /// The values of entries `range` (within the level), as held.
    pub fn part(&self, range: std::ops::Range<usize>) -> ConfigValues<'_> {
        match self {
            LevelValues::Narrow(v) => ConfigValues::Narrow(&v[range]),
            LevelValues::Wide(v) => ConfigValues::Wide(&v[range]),
        }
    }

    /// Positions in the level.
    pub fn len(&self) -> usize {
        match self {
            LevelValues::Narrow(v) => v.len(),
            LevelValues::Wide(v) => v.len(),
        }
    }

    /// Whether the level holds no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packed value at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> u16 {
        match self {
            LevelValues::Narrow(v) => v[index] as u16,
            LevelValues::Wide(v) => v[index],
        }
    }

    /// Sets entry `index` to `packed`, widening every cell to two bytes
    /// first if it does not fit one.
    #[inline]
    pub fn set(&mut self, index: usize, packed: u16) {
        match self {
            LevelValues::Narrow(v) => match u8::from_packed(packed) {
                Some(c) => v[index] = c,
                None => {
                    let mut wide: Vec<u16> = v.iter().map(|&x| x as u16).collect();
                    wide[index] = packed;
                    *self = LevelValues::Wide(wide);
                }
            },
            LevelValues::Wide(v) => v[index] = packed,
        }
    }

    /// All packed values as `u16` (borrowed when the cells are wide).
    pub fn widened(&self) -> std::borrow::Cow<'_, [u16]> {
        match self {
            LevelValues::Narrow(v) => v.iter().map(|&x| x as u16).collect(),
            LevelValues::Wide(v) => std::borrow::Cow::Borrowed(v),
        }
    }
}

/// The packed values of one tuzdyk configuration of one level (its boards
/// in rank order, all kazan splits of a board adjacent), borrowed as held.
#[derive(Clone, Copy, Debug)]
pub enum ConfigValues<'a> {
    /// One byte a position.
    Narrow(&'a [u8]),
    /// Two bytes a position.
    Wide(&'a [u16]),
}

impl ConfigValues<'_> {
    /// Positions held.
    pub fn len(&self) -> usize {
        match self {
            ConfigValues::Narrow(v) => v.len(),
            ConfigValues::Wide(v) => v.len(),
        }
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The solved values of one unit: each configuration with its packed values
/// (board-major, the layout's order within the configuration).
pub type UnitValues = Vec<(usize, LevelValues)>;

/// Collects packed values into one-byte cells, switching to two-byte cells
/// when a value does not fit a byte.
pub struct LevelBuilder {
    values: LevelValues,
}

impl LevelBuilder {
    /// An empty level, room for `capacity` one-byte cells.
    pub fn with_capacity(capacity: usize) -> LevelBuilder {
        LevelBuilder {
            values: LevelValues::Narrow(Vec::with_capacity(capacity)),
        }
    }

    /// Appends packed values.
    pub fn extend(&mut self, packed: &[u16]) {
        if let LevelValues::Narrow(v) = &mut self.values {
            if packed.iter().all(|&p| u8::from_packed(p).is_some()) {
                v.extend(packed.iter().map(|&p| p as u8));
                return;
            }
            let wide: Vec<u16> = v.iter().map(|&x| x as u16).collect();
            self.values = LevelValues::Wide(wide);
        }
        if let LevelValues::Wide(v) = &mut self.values {
            v.extend_from_slice(packed);
        }
    }

    /// The values collected.
    pub fn finish(self) -> LevelValues {
        self.values
    }
}

impl From<Vec<u8>> for LevelValues {
    fn from(v: Vec<u8>) -> LevelValues {
        LevelValues::Narrow(v)
    }
}

impl From<Vec<u16>> for LevelValues {
    fn from(v: Vec<u16>) -> LevelValues {
        LevelValues::Wide(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The level builder switches to two-byte cells when a value needs it.
    #[test]
    fn level_builder_widens() {
        let mut b = LevelBuilder::with_capacity(4);
        b.extend(&[1, 2]);
        b.extend(&[300, 4]);
        assert_eq!(b.finish(), LevelValues::Wide(vec![1, 2, 300, 4]));
        let mut b = LevelBuilder::with_capacity(2);
        b.extend(&[7, 255]);
        assert_eq!(b.finish(), LevelValues::Narrow(vec![7, 255]));
    }
}
