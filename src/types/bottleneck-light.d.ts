// `bottleneck/light.js` (what @octokit/plugin-throttling loads: Bottleneck without its Redis
// scripts) has the full package's types.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck';
  export default Bottleneck;
}
