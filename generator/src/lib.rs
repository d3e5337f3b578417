//! togyz-gen library
