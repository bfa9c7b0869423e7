use crate::cli::CompareArgs;
pub fn run(_args: CompareArgs) -> anyhow::Result<u8> {
    anyhow::bail!("compare is not built yet")
}
