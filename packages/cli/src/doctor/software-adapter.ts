/**
 * How to get a software WebGPU adapter (Mesa lavapipe through Dawn's Vulkan backend) on Debian
 * bookworm, as root; the same steps `.ci/run` takes. Bookworm's own Mesa 22 is too old for Dawn.
 */
export const SOFTWARE_ADAPTER_STEPS: readonly string[] = [
  'awk \'BEGIN{RS="";ORS="\\n\\n"} NR==1\' /etc/apt/sources.list.d/debian.sources \\',
  "  | sed -e 's/^Suites:.*/Suites: bookworm-backports/' > /etc/apt/sources.list.d/backports.sources",
  'apt-get update',
  'apt-get install -y libvulkan1',
  'apt-get install -y -t bookworm-backports mesa-vulkan-drivers',
];
