import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import AnalysisPlayground from './AnalysisPlayground.vue';

/** The default theme plus the playground component of the playground page. */
const theme: Theme = {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('AnalysisPlayground', AnalysisPlayground);
  },
};

export default theme;
