//! The `vmap(x: 0, y: 1)` option of `#[computation]`, as read (the batching itself is
//! xla-autodiff's `vmap_module`, applied where the macro expands).

use proc_macro2::Ident;
use syn::meta::ParseNestedMeta;

/// The option's value: each listed parameter with its batch axis.
pub type VmapAxes = Vec<(Ident, usize)>;

/// Parses the inside of `vmap(x: 0, y: 1)`.
pub fn parse(meta: &ParseNestedMeta) -> syn::Result<VmapAxes> {
    let mut axes = Vec::new();
    meta.parse_nested_meta(|inner| {
        let name = inner
            .path
            .get_ident()
            .cloned()
            .ok_or_else(|| inner.error("expected a parameter name"))?;
        inner.input.parse::<syn::Token![:]>()?;
        let axis: syn::LitInt = inner.input.parse()?;
        axes.push((name, axis.base10_parse()?));
        Ok(())
    })?;
    Ok(axes)
}
