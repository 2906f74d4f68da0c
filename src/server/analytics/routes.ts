/**
 * Dealer analytics routes: the Analytics Dashboard data and its CSV export (spec 02 §2 Analytics,
 * DECISIONS 18), each for every device or one (`device`: all, desktop or mobile; migration 0024).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dealerParams } from '../../domain/contracts/common';
import { analyticsReportQuery, analyticsReportSchema, dealerAnalyticsQuery, dealerAnalyticsSchema } from '../../domain/contracts/analytics';
import { getDealer } from '../dealers/service';
import { analyticsCsv, dealerAnalytics } from './service';
import { analyticsReport, reportCsv, reportCsvName } from './report';

const tags = ['analytics'];

export async function analyticsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/dealers/:dealerId/analytics',
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'Analytics of a period', params: dealerParams, querystring: dealerAnalyticsQuery, response: { 200: dealerAnalyticsSchema } } },
    async (request) => {
      const { period, device } = request.query;
      const dealer = await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      return dealerAnalytics(app.db, dealer.id, period, dealer.configs.modelMap, app.now(), device);
    },
  );

  app.get(
    '/api/dealers/:dealerId/analytics/export.csv',
    // text/csv attachment: no JSON answer to describe.
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'Analytics of a period as CSV', params: dealerParams, querystring: dealerAnalyticsQuery } },
    async (request, reply) => {
      const { period, device } = request.query;
      const dealer = await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      const csv = await analyticsCsv(app.db, dealer.id, period, dealer.configs.modelMap, app.now(), device);
      const suffix = device === 'all' ? '' : `-${device}`;
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="dc-banners-${dealer.id}-${period}${suffix}.csv"`)
        .send(csv);
    },
  );

  app.get(
    '/api/dealers/:dealerId/analytics/report',
    {
      config: { access: 'dealer-read' },
      schema: { tags, summary: 'Analytics of a period or custom range with its comparison and per-model, per-slot and per-creative tables', params: dealerParams, querystring: analyticsReportQuery, response: { 200: analyticsReportSchema } },
    },
    async (request) => {
      const dealer = await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      return analyticsReport(app.db, dealer, request.query, app.now());
    },
  );

  app.get(
    '/api/dealers/:dealerId/analytics/report.csv',
    // text/csv attachment: no JSON answer to describe.
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'One table of the analytics report as CSV (same window and rows as the screen)', params: dealerParams, querystring: analyticsReportQuery } },
    async (request, reply) => {
      const dealer = await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      const report = await analyticsReport(app.db, dealer, request.query, app.now());
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${reportCsvName(dealer.id, report, request.query.table)}"`)
        .send(reportCsv(report, request.query.table));
    },
  );
}
